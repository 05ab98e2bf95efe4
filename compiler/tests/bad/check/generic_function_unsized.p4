// A generic function whose result is its own type variable (`T same<T>(in T x)`) parses
// and binds T at each call; an unsized constant gives T no width (p4c refuses it too).
#include <core.p4>
T same<T>(in T x) { return x; }
control C(out bit<8> y) {
    apply {
        y = same(8w3);
        y = same(255);
    }
}
control Ctl(out bit<8> y);
package Pkg(Ctl c);
Pkg(C()) main;
