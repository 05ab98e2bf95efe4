// Checks: a whole header assigned from a function's return value (a local header built
// from a list expression, valid because it was initialised) and from a struct-valued
// expression cast to the header type (`(data_t){ b1 = ..., ... }`), both
// setting every field and the validity of the target; and a header `out` argument of
// an action written whole.
// Expected packets: by hand: b1 = 1 -> h.d = mk(9) = {9, 9, 0x1234};
// b1 = 2 -> h.d = (data_t){1, 2, 3} = 01 02 00 03; b1 = 3 -> fill(h.d) = {0xee, b1 + 1, 0}.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<16> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
data_t mk(in bit<8> a) { data_t d = { a, a, 16w0x1234 }; return d; }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action fill(out data_t d, in bit<8> v) { d = { 0xee, v + 1, 0 }; }
    apply {
        if (h.d.b1 == 1) {
            h.d = mk(8w9);
        } else if (h.d.b1 == 2) {
            h.d = (data_t){ b1 = 1, b2 = 2, h1 = 3 };
        } else {
            fill(h.d, h.d.b1);
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
