// Two struct-valued expressions can be compared only when one side says which struct
// it is; lists of different lengths cannot be compared at all.
#include <core.p4>
struct pair_t { bit<8> lo; bit<8> hi; }
control C(in pair_t p, out bool r) {
    apply {
        r = p == {lo = 1, hi = 2};
        r = {lo = 8w1, hi = 8w2} == {lo = 8w1, hi = 8w2};
        r = {8w1, 8w2} == {8w1};
    }
}
