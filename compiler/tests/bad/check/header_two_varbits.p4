// A header has at most one varbit field (reported at the first, as p4c does).
#include <core.p4>
header opts_t {
    bit<8> len;
    varbit<64> first;
    varbit<64> second;
}
