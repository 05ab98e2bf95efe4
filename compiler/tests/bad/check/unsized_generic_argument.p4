// An unsized constant passed where only a type variable gives the width cannot be given
// one (p4c: "could not infer a width"); a cast, or another argument that fixes the type
// variable, makes it fine.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct hs_t { h_t h; }
struct m_t { bit<16> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        hash(m.x, HashAlgorithm.crc16, 16w0, { h.h.a }, 1024);
        hash(m.x, HashAlgorithm.crc16, 16w0, { h.h.a }, 32w1024);
        random(m.x, 0, 1023);
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
