// A function whose return type is its own type variable (`T max<T>(...)`, allowed by the
// grammar: typeOrVoid may be an identifier): the parser does not take it yet.
#include <core.p4>
T max<T>(in T a, in T b) { return a > b ? a : b; }
