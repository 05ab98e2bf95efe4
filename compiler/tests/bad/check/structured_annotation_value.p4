// A structured annotation holds compile-time constants of type int, string or bool
// (p4c type-checks them): a bit<8> value, a tuple or a run-time value is refused.
#include <core.p4>
const bit<8> SMALL = 3;
const int LIMIT = 7;
@good[LIMIT + 1, "text", true, LIMIT == 7]
@sized[SMALL]
@pair[lo = 1, hi = {1, 2}]
control C(in bit<8> x) {
    apply { }
}
