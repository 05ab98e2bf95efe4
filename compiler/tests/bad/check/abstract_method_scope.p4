// An abstract method implemented in an initializer block runs in the extern, not in the
// control: it sees the control's parameters, constants and instances, but not the
// control's variables (p4c: "declaration not found") -- unless the extern marks it
// @synchronous(m), as TNA's RegisterAction does (tests/test_arch_tna.py).
#include <core.p4>
#include <tna.p4>
header h_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct hs_t { h_t h; }
struct m_t { bit<32> step; }
const bit<32> LIMIT = 1000;
extern Cell<T, I> {
    Cell(bit<32> size);
    T update(in I index);
    abstract void apply(inout T value, out T rv);
}
parser IP(packet_in pkt, out hs_t hdr, out m_t md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t md, in ingress_intrinsic_metadata_t ig_intr_md) {
    bit<32> increment = 1;
    Cell<bit<32>, bit<9>>(512) bump = {
        void apply(inout bit<32> value, out bit<32> rv) {
            bit<32> mine = value;              // its own locals are fine
            if (mine < LIMIT) {                // and constants
                value = mine + md.step;        // and the control's parameters
            }
            value = value + increment;         // not the control's variables
            rv = increment;
        }
    };
    apply {
        increment = 2;
        md.step = bump.update(ig_intr_md.ingress_port);
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
