// A select keyset or switch label of another type is reported at the select or switch
// expression it is compared with (as p4c); a range of mixed widths stays at the range.
#include <core.p4>
enum bit<4> Kind { A = 1, B = 2 }
parser P(packet_in b, in bit<8> tag) {
    state start {
        transition select(tag) {
            4w3: accept;
            8w1 .. 4w2: reject;
            default: accept;
        }
    }
}
control C(in Kind k) {
    apply {
        switch (k) {
            Kind.A: { }
            4w2: { }
        }
    }
}
