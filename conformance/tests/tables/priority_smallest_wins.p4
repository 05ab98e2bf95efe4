// Checks: `largest_priority_wins = false` (spec 14.2.1.4, entry priorities): the entry with the
// smallest priority value wins, whatever its place in the list; here the specific entry,
// written second with priority 10, beats the catch-all written first with priority 20
// (largest-wins or first-wins would pick the catch-all).
// Expected packets: by hand: b1 = 5 matches both -> priority 10 -> port 2;
// b1 = 6 matches only the catch-all -> port 1.
// not on p4c: its BMv2 JSON numbers `entries` by position (first wins) and ignores `priority = N` and largest_priority_wins (only @priority is read; through 1.2.5.16)
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port, bit<8> mark) { sm.egress_spec = port; h.d.b2 = mark; }
    table t {
        key = { h.d.b1: ternary; }
        actions = { set_port; }
        default_action = set_port(7, 0xdd);
        largest_priority_wins = false;
        @noWarn("entries_out_of_priority_order")
        entries = {
            priority = 20: 8w0 &&& 8w0: set_port(1, 0xaa);
            priority = 10: 8w0x05 &&& 8w0xff: set_port(2, 0xbb);
        }
    }
    apply { t.apply(); }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
