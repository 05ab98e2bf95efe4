// An extern constructor cannot take a parser, control or package (p4c refuses the
// constructor call, at the parameter). Declaring such an extern alone is not refused.
#include <core.p4>
control Step();
parser Read();
extern Runner {
    Runner(Step s);
}
extern Reader {
    Reader(Read r);
}
control Nop() { apply { } }
control Top() {
    Runner(Nop()) run;
    apply { }
}
