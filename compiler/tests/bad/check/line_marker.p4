/* A program run through cpp (or generated) carries line markers: errors name
 * the file and line they mark, as p4c reports them. */
#include <core.p4>
#include <v1model.p4>
# 30 "gen/prog.p4"
const bit<8> a = undeclared_a;
#line 7 "templates/b.p4"
const bit<8> b = 8w1;
const bit<8> c = undeclared_c;
