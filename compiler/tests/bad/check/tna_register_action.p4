// A RegisterAction whose apply() does not fit the Register's cell type, one that
// implements a method the extern does not have, and a Meter colour in a bool.
#include <core.p4>
#include <tna.p4>
header h_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct hs_t { h_t h; }
struct m_t { bool green; }
parser IP(packet_in pkt, out hs_t hdr, out m_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t md, in ingress_intrinsic_metadata_t ig_intr_md) {
    Register<bit<32>, bit<9>>(512) cells;
    RegisterAction<bit<32>, bit<9>, bit<32>>(cells) bump = {
        void apply(inout bit<16> value, out bit<32> rv) { rv = 0; }
    };
    RegisterAction<bit<32>, bit<9>, bit<32>>(cells) other = {
        void run(inout bit<32> value) { }
    };
    Meter<bit<9>>(512, MeterType_t.BYTES) m;
    apply {
        bump.execute(ig_intr_md.ingress_port);
        md.green = m.execute(ig_intr_md.ingress_port);
    }
}
control ID(packet_out pkt, inout hs_t hdr, in m_t md) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out hs_t hdr, out m_t md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); pkt.extract(hdr.h); transition accept; }
}
control E(inout hs_t hdr, inout m_t md) { apply { } }
control ED(packet_out pkt, inout hs_t hdr, in m_t md) { apply { pkt.emit(hdr); } }
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
