// Checks: `for` loops in a parser state (extracting s[0] and s[1] with a constant index)
// and in a function, with `return` inside the loop: firstbig(a) is the position, from the
// top, of a's highest set bit (0x10 -> 3), or 8 when a is 0.
// Expected packets: by hand.
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
header e_t { bit<8> v; }
struct hs_t { h_t h; e_t[4] s; }
struct m_t { bit<8> x; }
bit<8> firstbig(in bit<8> a0) {
    bit<8> a = a0;
    for (bit<8> i in 0 .. 7) {
        if (a[7:7] == 1) { return i; }
        a = a << 1;
    }
    return 8;
}
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        p.extract(h.h);
        for (bit<8> i in 0 .. 1) { p.extract(h.s[i]); }
        transition accept;
    }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply { h.h.b = firstbig(h.h.a); sm.egress_spec = 1; }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); p.emit(h.s); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
