// @match on a struct field (a value_set's key) names a match_kind, not a number.
#include <core.p4>
struct key_t {
    @match(exact) bit<8> a;
    @match(2 * 2) bit<8> b;
}
