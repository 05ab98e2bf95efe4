// A sized constant may initialise an int constant (as in p4c), which then carries its
// value: 2 cannot be cast to bool. A signed constant of width 0 (int<0>) does not exist.
#include <core.p4>
const int ONE = 8w1;
const int TWO = 8w2;
const bool YES = (bool)ONE;
const bool BAD = (bool)TWO;
const int NONE = 0s0;
