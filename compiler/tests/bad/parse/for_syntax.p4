// Malformed `for` loops: a missing ';' between condition and update, a declaration in
// the update clause, and a range without its upper bound.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; }
control A(inout hs_t h, inout m_t m) {
    apply { for (bit<8> i = 0; i < 4 i = i + 1) { m.x = i; } }
}
control B(inout hs_t h, inout m_t m) {
    apply { for (bit<8> i = 0; i < 4; bit<8> j = 1) { m.x = i; } }
}
control C(inout hs_t h, inout m_t m) {
    apply { for (bit<8> i in 1 .. ) { m.x = i; } }
}
