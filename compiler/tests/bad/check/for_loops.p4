// `for` loops: a collection that is not a range, a header stack or a list, a loop variable
// of another type than the elements, and break/continue outside a loop.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> count; }
header e_t { bit<8> v; }
struct hs_t { h_t h; e_t[4] s; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        for (bit<8> j in h.h.count) { m.x = j; }
        for (bit<8> e in h.s) { m.x = e; }
        break;
        if (m.x == 0) { continue; }
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
