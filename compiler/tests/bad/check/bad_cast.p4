const int<8> a = -1;
const bit<16> b = (bit<16>)a;
