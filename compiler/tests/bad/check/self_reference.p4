// A type may not mention itself (p4c: "Self-referencing types not supported"), not even
// as its own type argument.
#include <core.p4>

struct Node { bit<8> v; Node next; }                 // struct inside itself
extern Chain { Chain(); void link(Chain c); }        // extern in its own method
control Loop() {
    Loop() again;                                     // control instantiating itself
    apply { }
}
extern Cell<T> { Cell(); void put(in T v); }
Cell<Cell<bit<8>>>() nested;                          // generic extern of itself
struct Pair<T> { T a; }
typedef Pair<bit<8>> P8;
typedef Pair<P8> PP;                                  // generic struct of itself
