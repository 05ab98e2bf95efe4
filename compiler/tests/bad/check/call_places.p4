// Calls and declarations p4c's front end allows only in some places: no table or control
// apply in an action, no action call in a function, verify only in parsers, a stack's
// next/last/lastIndex only in parsers, instances only among a parser's or control's locals.
#include <core.p4>

header h_t { bit<8> a; }
struct hs_t { h_t[2] s; }
extern Box { Box(); }
control Inner(inout hs_t h) { apply { } }
action mark(inout bit<8> v) { v = 1; }
bit<8> helper(inout bit<8> v) {
    mark(v);                                          // action from a function
    return v;
}
parser Sub(inout hs_t h)(Box b) { state start { transition accept; } }
control Outer(inout hs_t h) {
    Inner() inner;
    Sub(Box()) sub;                                   // a parser instance in a control
    table t { actions = { } }
    action run() {
        t.apply();                                    // table apply from an action
        inner.apply(h);                               // control apply from an action
    }
    apply {
        Box() b;                                      // instance in an apply block
        verify(h.s[0].a == 0, error.NoError);          // verify outside a parser
        h.s.last.a = 1;                               // last outside a parser
        h.s[0].a = (bit<8>)h.s.lastIndex;             // lastIndex outside a parser
    }
}
