// Checks: `break` and `continue` inside the cases of a `switch` in an unrolled `for` loop:
// a = 1 adds 1 + 100 per round and breaks in the third (203), a = 2 adds 10 and continues
// (50), any other a adds 100 five times (500 mod 256 = 244).
// Expected packets: by hand.
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) { state start { p.extract(h.h); transition accept; } }
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    action a1() { } action a2() { }
    table t { key = { h.h.a : exact; } actions = { a1; a2; } const entries = { 1 : a1(); 2 : a2(); } }
    apply {
        t.apply(); h.h.b = 0;
        for (bit<8> i = 0; i < 5; i = i + 1) {
            switch (h.h.a) {
                1: { h.h.b = h.h.b + 1; if (i == 2) { break; } }
                2: { h.h.b = h.h.b + 10; continue; }
            }
            h.h.b = h.h.b + 100;
        }
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
