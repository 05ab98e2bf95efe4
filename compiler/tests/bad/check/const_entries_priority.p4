// Priorities are for `entries`; `const entries` take their order as priority.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> b; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in pkt, out hs h, inout m_t m, inout standard_metadata_t sm) { state start { pkt.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    table t {
        key = { h.h.b: ternary; }
        actions = { NoAction; }
        const entries = {
            priority = 10: 8w1 &&& 8w1: NoAction();
        }
    }
    apply { t.apply(); }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs h, inout m_t m) { apply { } }
control D(packet_out pkt, in hs h) { apply { pkt.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
