// Explicit entry priorities as p4c's front end numbers them: none for a table whose keys
// are all exact/lpm, the first entry must have one when a later one has, and the numbers
// that follow by priority_delta must not go below zero.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; bit<16> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    action a(bit<8> v) { m.x = v; }
    table exact_only {
        key = { h.h.a : exact; h.h.b : lpm; }
        actions = { a; }
        entries = { priority = 10: (1, 2) : a(1); (3, 4) : a(2); }
    }
    table first_without {
        key = { h.h.a : ternary; }
        actions = { a; }
        entries = { 1 &&& 0xf : a(1); priority = 40: 2 &&& 0xf : a(2); }
    }
    table overflow {
        key = { h.h.a : ternary; }
        actions = { a; }
        priority_delta = 10;
        entries = { priority = 12: 1 &&& 0xf : a(1); 2 &&& 0xf : a(2); 3 &&& 0xf : a(3); }
    }
    table fine {
        key = { h.h.a : ternary; }
        actions = { a; }
        largest_priority_wins = false;
        priority_delta = 10;
        entries = { priority = 12: 1 &&& 0xf : a(1); 2 &&& 0xf : a(2); 3 &&& 0xf : a(3); }
    }
    apply { exact_only.apply(); first_without.apply(); overflow.apply(); fine.apply(); }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
