const bit<4> x = 20;
