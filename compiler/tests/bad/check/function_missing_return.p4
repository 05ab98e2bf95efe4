// A function with a result must return on every path (p4c: "does not return a value on
// all paths"): max falls off its end when a <= b.
#include <core.p4>
#include <v1model.p4>
bit<8> max(in bit<8> a, in bit<8> b) {
    if (a > b) {
        return a;
    }
}
bit<8> ok(in bit<8> a) {
    if (a == 0) { return 1; } else { return a; }
}
header h_t { bit<8> a; bit<8> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.a = max(hdr.h.a, ok(hdr.h.b)); }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
