// An extern called with an out or inout struct that holds a header (a nested struct) is
// refused for every package, where it is called, as p4c's midend does: a flat struct and a
// type variable bound to bit<8> are fine, the same generic extern bound to hs_t is not.
#include <core.p4>
header h_t { bit<8> v; }
struct hs_t { h_t h; }
struct flat_t { bit<8> a; }
extern void fill_flat(out flat_t f);
extern void fill<T>(inout T t);
control C(inout hs_t hs) {
    apply {
        flat_t f;
        fill_flat(f);
        fill(hs.h.v);
        fill(hs);
    }
}
control Ctl(inout hs_t hs);
package Pkg(Ctl c);
Pkg(C()) main;
