struct s_t { bit<8> a; }
header h_t { s_t s; }
