// Checks: a `for` range variable used as slice bounds (constants once the loop is
// unrolled): b becomes a with its bits reversed (0x01 -> 0x80, 0xb0 -> 0x0d); and the
// indexed part-select `w[i +: 8]` (P4-16 1.2.4: bits i+7 down to i) in a counted loop:
// w's bytes reversed (0x11223344 -> 0x44332211).
// Expected packets: by hand.
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
// needs p4c 1.2.4.17: the indexed part-select [lo +: w] (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<32> w; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        for (bit<8> i in 0 .. 7) {
            h.h.b[i:i] = h.h.a[7 - i:7 - i];
        }
        bit<32> r = 0;
        for (bit<8> i = 0; i < 32; i = i + 8) {
            r = r << 8;
            r = r + (bit<32>)h.h.w[i +: 8];
        }
        h.h.w = r;
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
