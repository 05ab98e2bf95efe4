// Checks: a local header-stack variable (`data_t[2] tmp;`), element assignment, and
// equality of stacks and headers as the spec defines it: equal when every element is
// either invalid in both or valid in both with equal fields.
// Expected packets: by hand: tmp = {h.d[0], h.d[1]} equals h.d -> b1 |= 1; after
// tmp[1].setInvalid(), tmp != h.d -> b1 |= 2 (bit 2 stays 0); two invalid headers with
// different fields are equal -> b1 |= 4. So b1 = 0x05 in d[0].
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t[2] d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d.next); pkt.extract(h.d.next); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        data_t[2] tmp;
        tmp[0] = h.d[0];
        tmp[1] = h.d[1];
        bit<8> r = 0;
        if (tmp == h.d) { r = r | 1; }
        tmp[1].setInvalid();
        if (tmp == h.d) { r = r | 2; }
        data_t x;
        data_t y;
        x.b1 = 1;
        y.b1 = 2;
        if (x == y) { r = r | 4; }
        h.d[0].b1 = r;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
