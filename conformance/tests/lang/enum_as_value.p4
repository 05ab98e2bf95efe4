// Checks: a serializable enum value read as its underlying bit<8> in negation, a slice,
// a shift and a concatenation, as p4c reads it (its sample issue3056): 0xa0 gives
// -0xa0 = 0x60, [7:4] = 0x0a, << 1 = 0x40, ++ Code.low = 0xa005.
// Expected packets: by hand (and the same with p4c-bm2-ss + simple_switch_grpc).
#include <core.p4>
#include <v1model.p4>
enum bit<8> Code { low = 0x05, high = 0xa0 }
header h_t { Code c; bit<8> neg; bit<8> sl; bit<8> sh; bit<16> cat; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        h.h.neg = -h.h.c;
        h.h.sl = (bit<8>)h.h.c[7:4];
        h.h.sh = h.h.c << 1;
        h.h.cat = h.h.c ++ Code.low;
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
