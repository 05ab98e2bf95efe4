// Inside a generic control a type variable stands for any type: an unsized
// constant or a value of another type cannot initialise or be assigned to it.
#include <core.p4>
control G<V>(inout V v) {
    apply {
        V copy = v;
        V zero = 0;
        v = 8w1;
        v = copy;
    }
}
