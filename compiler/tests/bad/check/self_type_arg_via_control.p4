// A type argument that mentions the generic type itself, here through the parameters
// of a control, is refused (p4c: 'contains self as type argument').
#include <core.p4>
extern Holder<T> {
    Holder();
    void run();
}
control User(Holder<_> h) {
    apply { h.run(); }
}
control Top() {
    Holder<User>() h;
    apply { }
}
