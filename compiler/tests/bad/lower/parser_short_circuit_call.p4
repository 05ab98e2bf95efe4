// `&&` whose right side calls a function, in a parser state: the call may run only when
// the left side holds, which needs a jump that BMv2's parser ops do not have.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; bool ok; }
bool big(in bit<16> v) { return v > 1000; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); meta.ok = hdr.h.a == 1 && big(hdr.h.b); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
