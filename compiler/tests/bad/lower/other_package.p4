#include <core.p4>
parser P1(packet_in p);
package Pkg(P1 p);
parser MyP(packet_in p) { state start { transition accept; } }
Pkg(MyP()) main;
