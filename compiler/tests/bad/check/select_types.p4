// A select expression is bit<W>, int<W>, bool or an enum (p4c): not a struct, a header,
// a varbit or an unsized constant.
#include <core.p4>
header h_t { bit<8> a; varbit<16> v; }
struct pair_t { bit<8> a; bit<8> b; }
parser P(packet_in pk, out h_t h, in pair_t p) {
    state start {
        transition select(p) { default: accept; }             // struct
    }
    state two {
        transition select(h.v, h.a) { default: accept; }      // varbit
    }
    state three {
        transition select(1) { 1: accept; default: reject; }  // unsized constant
    }
}
