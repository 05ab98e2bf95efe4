// `?:` choosing between two headers in a parser state: only the chosen side may be copied,
// which needs a jump that BMv2's parser ops do not have (in controls it is lowered so).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct hs_t { h_t h; h_t g; }
struct m_t { bit<8> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        h_t other = { 1, 2 };
        hdr.g = hdr.h.a == 1 ? hdr.h : other;
        transition accept;
    }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
