// Rules of p4c's front end: a key expression p4c cannot name needs @name (a field, an
// index, a slice, '&' of those and isValid() need none), no action calls in a parser,
// no parser/control instances at the top level, a table's entries after its key.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<32> a; bit<32> b; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
action note(inout bit<8> v) { v = 1; }
parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); note(m.x); transition accept; }
}
control Helper(inout m_t m) { apply { } }
Helper() helper;
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    action a() { }
    table t {
        key = {
            h.h.a + h.h.b : exact;
            (bit<16>)h.h.a : exact;
            h.h.a + h.h.b : ternary @name("sum");
            h.h.a[7:0] : exact;
            h.h.b & 0xff : ternary;
            h.h.isValid() : exact;
        }
        actions = { a; }
    }
    table entries_first {
        const entries = { 1 : a(); }
        key = { h.h.a : exact; }
        actions = { a; }
    }
    apply { t.apply(); entries_first.apply(); }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
