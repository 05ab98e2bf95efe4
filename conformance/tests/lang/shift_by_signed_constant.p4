// Checks: a shift by a constant of a signed type (const int<6> two = 2) is accepted when the
// constant is not negative, as p4c accepts it (its sample issue3287); a signed variable
// amount stays an error. A shift by a serializable enum member shifts by its value (p4c's
// sample issue3288). 0x03 << 2 = 0x0c, 0x03 << 3 = 0x18.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; }
enum bit<8> Amount { three = 3 }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) { state start { p.extract(h.h); transition accept; } }
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        const int<6> two = 2;
        h.h.b = h.h.a << two;
        h.h.c = h.h.a << Amount.three;
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
