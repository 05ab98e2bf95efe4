// 'main' names the package instance: an extern of that name is refused as in p4c (a
// function named main is allowed).
#include <core.p4>
extern main { }
