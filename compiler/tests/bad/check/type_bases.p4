// 'type' applies to bit<W>, int<W>, bool and other 'type's only, and a serializable enum's
// underlying type is bit<W> or int<W>, not a 'type' (p4c).
#include <core.p4>
header h_t { bit<8> a; }
type bit<16> Port_t;
type h_t Wrapped_t;                                    // 'type' of a header
typedef tuple<bit<8>, bit<8>> Two;
type Two Pair_t;                                       // 'type' of a tuple
enum Port_t Kind { A = 1, B = 2 }                      // enum over a 'type'
