// The body of a structured annotation is a list of expressions or a list of key=value
// pairs, never both (p4c's grammar: 'syntax error, unexpected INTEGER, expecting ]').
#include <core.p4>
@Mixed[key=4, 5]
control C() { apply { } }
@AlsoMixed[1, key=2]
control D() { apply { } }
@Fine[a=1, b="x"] @AlsoFine[1, 2]
control E() { apply { } }
