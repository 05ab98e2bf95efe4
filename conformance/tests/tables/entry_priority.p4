// Checks: entries with explicit priorities (priority = N: ...; only non-const `entries` may
// have them, as the spec and p4c say): the largest priority wins (the P4-16 default,
// largest_priority_wins), even when that entry is written after a broader one; entries without overlap behave as usual.
// Expected packets: by hand: b1 = 5 matches both entries, priority 20 -> port 2;
// b1 = 6 matches only the catch-all -> port 1.
// not on p4c: its BMv2 JSON numbers `entries` by position (first wins) and ignores `priority = N` (only @priority is read; through 1.2.5.16)
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xaa; }
    action miss_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xbb; }
    table t {
        key = { h.d.b1: ternary; }
        actions = { set_port; miss_port; }
        default_action = miss_port(6);
        entries = {
            priority = 10: 8w0 &&& 8w0: set_port(1);
            priority = 20: 8w0x05 &&& 8w0xff: set_port(2);
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
