const bit<8> a = 1;
/* never closed
