// Checks: const entries of a range key on a serializable enum field, written with enum
// members as the bounds (Kind.A .. Kind.B) and '_' (spec, entries: entries use the key's
// type); the range is inclusive and the first entry wins over the catch-all.
// Expected packets: by hand: b1 = 0x15 and 0x20 are in 0x10..0x20 -> port 2; 0x40 and
// 0x0f are not -> port 3.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<16> y; }

enum bit<8> Kind { A = 0x10, B = 0x20, C = 0x30 }
parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Kind k;
    action setp(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { k : range; }
        actions = { setp; }
        default_action = setp(9);
        const entries = {
            Kind.A .. Kind.B : setp(2);
            _ : setp(3);
        }
    }
    apply { k = (Kind)h.d.b1; t.apply(); }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
