// A table's direct meter must be read by one of its actions: BMv2 writes the colour into the field read() names (p4c-bm2-ss refuses this too).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; bit<2> c; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    direct_meter<bit<2>>(MeterType.packets) dm;
    action fwd() { sm.egress_spec = 1; }
    table t { key = { hdr.h.a : exact; } actions = { fwd; } meters = dm; }
    apply { t.apply(); }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
