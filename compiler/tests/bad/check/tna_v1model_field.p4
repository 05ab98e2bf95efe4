// A v1model habit on TNA: there is no egress_spec; the port goes in ucast_egress_port.
#include <core.p4>
#include <tna.p4>
header h_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct hs_t { h_t h; }
struct m_t { }
parser IP(packet_in pkt, out hs_t hdr, out m_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t md, in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply { ig_tm_md.egress_spec = ig_intr_md.ingress_port; }
}
control ID(packet_out pkt, inout hs_t hdr, in m_t md) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out hs_t hdr, out m_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); pkt.extract(hdr.h); transition accept; }
}
control E(inout hs_t hdr, inout m_t md) { apply { } }
control ED(packet_out pkt, inout hs_t hdr, in m_t md) { apply { pkt.emit(hdr); } }
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
