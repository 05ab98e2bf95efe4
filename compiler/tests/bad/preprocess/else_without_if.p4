const bit<8> a = 1;
#else
