// A generic struct, header or extern named as a type needs its type arguments (p4c
// infers them only for constructor calls).
#include <core.p4>
struct Box<T> { T v; }
header Tagged<T> { T tag; }
extern Store<T> { Store(); T read(); }
typedef Box Plain;                                     // struct without arguments
control C(Store s) {                                   // extern parameter without arguments
    apply {
        Tagged t;                                      // header without arguments
    }
}
extern Box make_box();                                 // result without arguments
