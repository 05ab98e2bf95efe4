// p4c makes a declaration that shadows a parameter of an enclosing block an error
// (other shadowing is only a warning there, and accepted here).
#include <core.p4>
struct s_t { bit<8> a; }
bit<8> twice(in bit<8> v) {
    bit<8> v = 2;                                      // shadows the function's parameter
    return v;
}
control C(inout s_t h, in bit<8> k) {
    action act(bit<8> k) { h.a = k; }                  // a parameter may shadow one
    apply {
        s_t h = { a = 1 };                             // shadows the control's parameter
        if (k == 1) {
            bit<8> k = 3;                              // even in a nested block
        }
    }
}
