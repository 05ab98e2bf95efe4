// An `optional` key matches one value or `_` (P4Runtime's OPTIONAL): a mask in an entry is
// refused, as p4c refuses it when it writes the P4Info.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { hdr.h.a : optional; }
        actions = { fwd; }
        const entries = {
            0x0a &&& 0x0f : fwd(1);
            _ : fwd(2);
        }
    }
    apply { t.apply(); }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
