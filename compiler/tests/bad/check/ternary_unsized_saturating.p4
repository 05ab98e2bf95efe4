// '?:' between two unsized constants needs a condition p4c can fold before it knows
// widths: one that goes through a saturating operator (here via a constant) is not.
#include <core.p4>
const bit<8> TOP = 8w250;
const bit<8> SUM = TOP |+| 8w10;
const bool FULL = SUM == 8w255;
const bool SMALL = TOP < 8w100;
header h_t { bit<8> a; }
void f(in h_t[SMALL ? 1 : 2] ok) { }
void g(in h_t[FULL ? 1 : 2] bad) { }
