// Checks: `priority_delta` (spec 14.2.1.4): an entry without a priority gets the previous
// entry's priority plus the delta when the smallest wins (table ts), minus it when the
// largest wins (table tl, the default); with the default delta 1 each case below would
// pick the other entry, and so would first-match order.
//   ts (largest_priority_wins = false, priority_delta = 10), key b1:
//     10: b1 == 0x01 -> 1;  (20): b1 == 0x05 -> 2;  15: b1 in {0x04, 0x05} -> 3;
//     (25): b1 == 0x15 -> 4;  22: b1 in 0x10..0x1f -> 5
//   b1 = 0x05: 20 vs 15 -> 15 wins (port 3; delta 1 would give 11 -> port 2)
//   b1 = 0x15: 25 vs 22 -> 22 wins (port 5; delta 1 would give 16 -> port 4)
//   tl (largest wins, priority_delta = 10), key b2, sets b2 to the winner's mark:
//     100: b2 == 0x01;  (90): b2 == 0x05 -> 0x90;  95: b2 in {0x04, 0x05} -> 0x95
//   b2 = 0x05: 90 vs 95 -> 95 wins (mark 0x95; delta 1 would give 99 -> 0x90)
// Expected packets: by hand from the spec's pseudocode.
// not on p4c: its BMv2 JSON numbers `entries` by position (first wins) and ignores `priority = N`, priority_delta and largest_priority_wins (through 1.2.5.16)
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
    action set_port(bit<9> port) { sm.egress_spec = port; }
    action mark(bit<8> v) { h.d.b2 = v; }
    table ts {
        key = { h.d.b1: ternary; }
        actions = { set_port; }
        default_action = set_port(7);
        largest_priority_wins = false;
        priority_delta = 10;
        @noWarn("entries_out_of_priority_order")
        entries = {
            priority = 10: 8w0x01 &&& 8w0xff: set_port(1);
                           8w0x05 &&& 8w0xff: set_port(2);
            priority = 15: 8w0x04 &&& 8w0xfe: set_port(3);
                           8w0x15 &&& 8w0xff: set_port(4);
            priority = 22: 8w0x10 &&& 8w0xf0: set_port(5);
        }
    }
    table tl {
        key = { h.d.b2: ternary; }
        actions = { mark; }
        default_action = mark(0xdd);
        priority_delta = 10;
        @noWarn("entries_out_of_priority_order")
        entries = {
            priority = 100: 8w0x01 &&& 8w0xff: mark(0x10);
                            8w0x05 &&& 8w0xff: mark(0x90);
            priority = 95:  8w0x04 &&& 8w0xfe: mark(0x95);
        }
    }
    apply { ts.apply(); tl.apply(); }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
