// `list<T>` (P4-16 1.2.4): a typed list expression gives its elements the type T, and a
// list of bit<16> is not a list of bit<32> (p4c: 'Cannot cast implicitly').
#include <core.p4>
extern Entries {
    Entries(list<bit<32>> values);
    void run();
}
control C() {
    Entries((list<bit<32>>){1, 2, 3}) good;
    Entries((list<bit<16>>){1, 2, 3}) bad;
    apply { good.run(); bad.run(); }
}
control Ctl();
package Pkg(Ctl c);
Pkg(C()) main;
