#include "no_such_file.p4"
