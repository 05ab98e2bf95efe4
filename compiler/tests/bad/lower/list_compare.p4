// Comparing two list expressions is valid P4 (element by element) but not yet lowered.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    apply {
        if ({hdr.h.a, 8w1} == {8w3, 8w1}) { sm.egress_spec = 1; }
    }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
