// p4c refuses strings, ints, externs, parsers, controls and packages where a value
// (or a directionless constructor parameter) is needed: one case per rule.
#include <core.p4>

extern Lamp { Lamp(); void on(); }
control Inner();
package Pkg(Inner i);

extern void log_text(in string msg);                 // string with a direction
extern void light(inout Lamp l);                     // extern with a direction
extern Counter2 { Counter2(); int count(); }          // int result of an extern method
extern void show(out bit<8> x = 8w1);                // default value of an out parameter
control Runs(in Inner i) { apply { } }               // control as a directional parameter
parser Sub(Inner i) { state start { transition accept; } }  // control as an apply parameter
control Holder()(Pkg p) { apply { } }                // package as a constructor parameter
control Wrong()(in bit<8> x) { apply { } }           // constructor parameter with a direction
control Opt()(@optional bit<8> x) { apply { } }      // @optional outside externs and packages
control UsesDecl()(Runs r) { apply { } }             // a declared control as a parameter type
struct S { string s; }                               // string field
typedef tuple<Lamp, bit<8>> T;                       // extern in a tuple

extern void keep<V>(in V v);
action act(int n, Lamp l) { }                        // int and extern action parameters
control Body() {
    Lamp() lamp;
    table t { actions = { } }
    apply {
        int i = 1;                                   // int variable
        Lamp other;                                  // extern variable
        keep(lamp);                                  // extern through a direction
        keep(t);                                     // a table as an argument
        keep("text");                                // string through a direction
    }
}
parser VsParser(in bit<8> v) {
    value_set<int>(4) vs;                            // int value_set
    state start { transition select(v) { vs: accept; default: reject; } }
}
