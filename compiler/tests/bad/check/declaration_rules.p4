// Declarations p4c refuses: a constructor with a return type, a type parameter named
// twice, a function calling itself (its name is not in scope in its body), a default
// parameter value that is not a compile-time constant.
#include <core.p4>
extern Meter2 {
    void Meter2();                                    // a constructor with a return type
}
extern void pick<T, T>(in T a);                       // T twice
bit<8> countdown(in bit<8> n) {
    return countdown(n - 1);                          // calls itself
}
bit<8> base() { return 1; }
bit<8> offset(in bit<8> a = base()) { return a; }     // a call as a default value
