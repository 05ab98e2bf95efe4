#line seven "x.p4"
# 12abc
const bit<8> a = 1;
