// A parser whose states only lead to each other never reaches accept or reject (p4c:
// "Parser never reaches accept or reject state").
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { transition one; }
    state one { p.extract(h.h); transition select(h.h.a) { 1: two; _: one; } }
    state two { transition one; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
