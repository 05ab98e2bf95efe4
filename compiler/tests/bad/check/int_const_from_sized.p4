// A sized constant may initialise an int constant (as in p4c), which then carries its
// value: 2 cannot be cast to bool.
#include <core.p4>
const int ONE = 8w1;
const int TWO = 8w2;
const bool YES = (bool)ONE;
const bool BAD = (bool)TWO;
