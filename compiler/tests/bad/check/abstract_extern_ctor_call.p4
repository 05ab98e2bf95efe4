// An extern with abstract methods is instantiated as a declaration with an initializer
// block that implements them; a constructor call (an argument) cannot implement them.
#include <core.p4>
extern Hook {
    Hook();
    abstract bit<8> pick(in bit<8> x);
}
package P(Hook h);
P(Hook()) main;
