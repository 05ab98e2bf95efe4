// A run-time division is refused whatever the package (p4c's midend does it for every
// target): only a power-of-two divisor (a shift or a mask) or constants compile.
#include <core.p4>
control C(inout bit<8> v, in bit<8> by) {
    apply {
        v = v / 8w4;
        v = v % 8w16;
        v = 8w200 / 8w3;
        v = v % by;
    }
}
control Ctl(inout bit<8> v, in bit<8> by);
package Pkg(Ctl c);
Pkg(C()) main;
