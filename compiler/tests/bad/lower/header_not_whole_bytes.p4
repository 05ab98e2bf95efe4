// BMv2 stores headers as whole bytes: a header of 8 + 1 bits is refused, as p4c-bm2-ss does.
#include <core.p4>
#include <v1model.p4>
header odd_t { bit<8> a; bit<1> flag; }
struct hs_t { odd_t o; }
struct m_t { bit<8> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.o); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
