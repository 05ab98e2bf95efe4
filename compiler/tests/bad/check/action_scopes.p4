// @tableonly and @defaultonly in a table's action list: a table-only action cannot be the
// default action, a default-only action cannot be in an entry (as p4c).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    action in_table() { m.x = 1; }
    action either() { m.x = 2; }
    action by_default() { m.x = 3; }
    table t {
        key = { h.h.a : exact; }
        actions = { @tableonly in_table; either; @defaultonly by_default; }
        const entries = { 1 : in_table(); 2 : either(); 3 : by_default(); }
        default_action = in_table();
    }
    apply { t.apply(); }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
