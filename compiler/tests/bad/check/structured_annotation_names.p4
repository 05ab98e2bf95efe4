// A structured annotation is the only one of its name on an element (p4c), whether the
// others are structured or not.
#include <core.p4>
@size(3)
@size[4]
const bit<8> a = 0;
@tag[x = 1]
@tag[y = 2]
const bit<8> b = 0;
@note("one") @note("two")                            // plain annotations may repeat
const bit<8> c = 0;
