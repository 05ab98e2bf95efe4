const bit<8> a = ;
const bit<8> b = 1
const bit<8> c = 3;
