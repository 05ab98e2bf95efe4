// A control cannot be given a parser to instantiate, nor a parser a control
// (p4c refuses them when it inlines the instances).
#include <core.p4>
parser Sub(packet_in b);
control Leaf(packet_in b);
parser P(packet_in b) { state start { transition accept; } }
control L(packet_in b) { apply { } }
control Outer(packet_in b)(Sub s) {
    apply { }
}
parser Outer2(packet_in b)(Leaf l) {
    state start { transition accept; }
}
control Top(packet_in b) {
    Outer(P()) o;
    apply { o.apply(b); }
}
parser TopP(packet_in b) {
    Outer2(L()) o2;
    state start { o2.apply(b); transition accept; }
}
