// Each parser/control given to V1Switch must have the parameters of v1model's type for its
// position: a directionless or wrongly directed parameter, a metadata struct other than the
// one the parser fixed, a missing parameter (p4c: "Cannot unify ...").
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> x; }
struct other_t { bit<8> y; }
parser P(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control VC(inout headers_t h, meta_t m) { apply { } }
control I(inout headers_t h, inout other_t m, inout standard_metadata_t sm) { apply { } }
control E(inout headers_t h, inout meta_t m, in standard_metadata_t sm) { apply { } }
control CC(inout headers_t h) { apply { } }
control D(packet_out p, inout headers_t h) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
