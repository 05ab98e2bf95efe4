// A function with an `if` (or an early `return`) called from a parser state: BMv2's parser
// ops run straight through, and this compiler does not split a called function's body
// into states as it splits an `if` written in the state itself.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
bit<8> clamp(in bit<8> v) { if (v > 10) { return 10; } return v; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); meta.x = clamp(hdr.h.a); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
