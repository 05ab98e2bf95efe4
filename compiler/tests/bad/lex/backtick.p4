const bit<8> a = 1;
const bit<8> b = `2;
