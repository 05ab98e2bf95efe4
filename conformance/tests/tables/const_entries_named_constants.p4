// Checks: const entries and default action written with named constants and a
// serializable enum (keys K1, K2; action arguments PORT_A, Color.RED), so the compiler
// must fold the names into the entries.
// Expected packets: by hand: f1 = 5 -> port 2 (PORT_A), b1 = 1 (Color.RED);
// f1 = 6 -> port 3; else default port 4.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
const bit<32> K1 = 5;
const bit<32> K2 = K1 + 1;
const bit<9> PORT_A = 2;
const bit<9> PORT_DEF = 4;
enum bit<8> Color { GREEN = 0, RED = 1, BLUE = 2 }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action go(bit<9> port, Color c) { sm.egress_spec = port; h.d.b1 = (bit<8>)c; }
    table t {
        key = { h.d.f1: exact; }
        actions = { go; }
        default_action = go(PORT_DEF, Color.GREEN);
        const entries = {
            K1: go(PORT_A, Color.RED);
            K2: go(PORT_A + 1, Color.BLUE);
        }
    }
    apply {
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
