header g_t { bit<8> x; }
struct s_t { g_t g; }
header h_t { s_t s; }
