// @p4runtime_translation(uri, T): T is bit<W>, a width or string (p4c's grammar).
#include <core.p4>
#include <v1model.p4>
@p4runtime_translation("example.org/a", bool)
type bit<9> a_t;
@p4runtime_translation("example.org/b", int<32>)
type bit<9> b_t;
@p4runtime_translation("example.org/c", bit<5 + 3>)
type bit<9> c_t;
@p4runtime_translation("example.org/d")
type bit<9> d_t;
