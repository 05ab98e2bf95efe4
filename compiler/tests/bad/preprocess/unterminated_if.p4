#ifdef FOO
const bit<8> a = 1;
