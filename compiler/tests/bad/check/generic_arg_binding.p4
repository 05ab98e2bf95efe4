// A type variable fixed by one argument's type arguments binds the others too:
// store<T> given a cell<bit<16>> makes T bit<16>, so a bool value does not fit.
#include <core.p4>
extern cell<T> {
    cell();
    void set(in T v);
}
void store<T>(cell<T> c, in T v) {
    c.set(v);
}
void keep<T>(in T v, cell<T> c) {
    c.set(v);
}
control C() {
    cell<bit<16>>() c16;
    apply {
        store(c16, 16w7);
        store(c16, true);
        keep(16w1, c16);
        keep(false, c16);
    }
}
