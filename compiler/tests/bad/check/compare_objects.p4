// Externs, tables and action calls are no values: '==' cannot compare them (p4c). Nor is
// '/' or '%' defined with a negative constant.
#include <core.p4>
extern Box { Box(); }
control C(inout bit<8> x) {
    Box() b1;
    Box() b2;
    table t { actions = { } }
    action a(inout bit<8> v) { v = v - 1; }
    apply {
        bool e = b1 == b2;                            // externs
        bool f = t == t;                              // tables
        if (a(x) == a(x)) { }                         // actions (void)
        x = x / -1;                                   // negative divisor
        x = -5 % x;                                   // negative dividend
    }
}
