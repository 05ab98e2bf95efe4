header h_t { foo_t a; }
