// Checks: a table's apply result used as a value, not as an if condition: stored in a
// bool (`bool hit = t.apply().hit;`), and chosen on inside ?: (`u.apply().miss ? a : b`).
// Each table is applied exactly once per packet.
// Expected packets: by hand: b1 = 1 hits t and u: b2 = 1, h1 = 0x000f;
// b1 = 2 misses both: b2 = 0, h1 = 0x00f0.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action count_apply() { h.d.f1 = h.d.f1 + 1; }
    table t {
        key = { h.d.b1: exact; }
        actions = { count_apply; }
        default_action = count_apply();
    }
    table u {
        key = { h.d.b1: exact; }
        actions = { count_apply; }
        default_action = count_apply();
    }
    apply {
        bool hit = t.apply().hit;
        h.d.b2 = hit ? 8w1 : 8w0;
        m.y = u.apply().miss ? 8w0xf0 : 8w0x0f;
        h.d.h1 = (bit<16>)m.y;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
