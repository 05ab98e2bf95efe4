#define ADD(a, b) ((a) + (b))
const bit<8> x = ADD(1);
