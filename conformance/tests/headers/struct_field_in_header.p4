// Checks: a header field of struct type (spec: a struct of bit<W> fields may be a header
// field): extracted, read, written field by field and as a whole, and emitted in order.
// Expected packets: by hand: in: base = {a 0x11, b 0x2, c 0x3}, d 0x44; out: the whole
// struct saved to metadata, b := c, d := saved a, a := 1 -> bytes 01 33 11.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct inner_t { bit<8> a; bit<4> b; bit<4> c; }
header data_t { inner_t base; bit<8> d; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { inner_t saved; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.saved = h.d.base;
        h.d.base.b = h.d.base.c;
        h.d.d = m.saved.a;
        h.d.base.a = 1;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
