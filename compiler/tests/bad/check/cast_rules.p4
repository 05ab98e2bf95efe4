// Casts p4c refuses: to a 'type' from anything but its underlying type (change the width
// first), and to a struct or header from a value (only from a list or struct expression).
#include <core.p4>
typedef bit<1> b1;
type b1 Flag_t;
struct pair_t { bit<8> a; bit<8> b; }
Flag_t narrow(in bit<2> v) {
    return (Flag_t)v;                                 // bit<2> to a 'type' of bit<1>
}
pair_t again(in pair_t p) {
    return (pair_t)p;                                 // struct value to struct
}
pair_t fine(in bit<8> x) {
    return (pair_t){ x, x };                          // from a list: allowed
}
