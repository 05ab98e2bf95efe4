// Where p4c needs a compile-time constant: select keysets (masks included), table entry
// keys and constructor arguments (a constructor parameter is one, a variable is not).
// Also: an action call takes no type arguments, and '_' is not a field's type.
#include <core.p4>
struct odd_t { _ f; }                                 // '_' as a type
extern Limit { Limit(bit<8> n); }
control Uses(in bit<8> v)(bit<8> n) {
    Limit(n) fine;                                    // a constructor parameter: constant
    Limit(v) wrong;                                   // an apply parameter: not constant
    action a() { }
    table t {
        key = { v: exact; }
        actions = { a; }
        const entries = { v : a(); }                  // entry key from a variable
    }
    apply { a<bit<8>>(); }                            // type arguments to an action
}
parser P(in bit<8> k) {
    bit<8> m = 3;
    state start {
        transition select(k) { 1 &&& m: accept; default: reject; }  // mask from a variable
    }
}
