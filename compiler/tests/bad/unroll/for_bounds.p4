// `for` loops are unrolled at compile time: refused, where they are written, when the
// bounds are known only at run time, the loop variable changes in the body (also through
// an inout argument), there is no condition, or there are too many iterations.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> count; }
header e_t { bit<8> v; }
struct hs_t { h_t h; e_t[4] s; }
struct m_t { bit<8> x; }
void bump(inout bit<8> v) { v = v + 1; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        for (bit<8> i = 0; i < h.h.count; i = i + 1) { m.x = m.x + 1; }
        for (bit<8> i = 0; i < 4; i = i + 1) { i = i + 1; }
        for (bit<8> i = 0; ; i = i + 1) { m.x = i; }
        for (bit<16> i = 0; i < 5000; i = i + 1) { m.x = m.x + 1; }
        for (bit<8> j in 1 .. h.h.count) { m.x = j; }
        for (bit<8> i = 0; i < 4; i = i + 1) { bump(i); }
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
