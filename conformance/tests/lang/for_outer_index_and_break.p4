// Checks: a `for` loop counting with a variable declared before it (n, k) leaves it at the
// value it had when `break` left the loop, or at its final value; an update of another
// variable (mask = mask << 1) is skipped by `break`, as in C: n is the index of a's lowest
// set bit (8 if none) and mask that bit; after the second loop m2 + k = 8 + 3.
// Expected packets: by hand.
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> n; bit<8> mask; bit<8> m2; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) { state start { p.extract(h.h); transition accept; } }
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        bit<8> n;
        bit<8> mask = 1;
        for (n = 0; n < 8; n = n + 1, mask = mask << 1) {
            if ((h.h.a & mask) != 0) { break; }
        }
        h.h.n = n;
        h.h.mask = mask;
        bit<8> k;
        bit<8> m2 = 1;
        for (k = 0; k < 3; k = k + 1, m2 = m2 << 1) { }
        h.h.m2 = m2 + k;
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
