// @pkginfo takes key=value pairs (p4c parses its body as such: an empty one is a syntax error).
#include <core.p4>
@pkginfo
control C() { apply { } }
