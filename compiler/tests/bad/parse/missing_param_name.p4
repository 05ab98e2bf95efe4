control C(inout bit<8>);
