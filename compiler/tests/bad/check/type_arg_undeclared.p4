// A name given as a type argument must be a declared type.
#include <core.p4>
control Stage<T>(inout T v);
package Pipe(Stage<Missing> s);
