// Checks: metadata made of nested structs (a struct holding a struct and a header),
// written and read field by field and copied as a whole inner struct.
// Expected packets: by hand: f1 = inner.a + inner.b.c (0x10 + 0x20), b1 = copied inner b.c,
// h1 = 0xBEEF from the metadata header (valid after setValid).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct leaf_t { bit<8> c; }
struct inner_t { bit<32> a; leaf_t b; }
header mtag_t { bit<16> v; }
struct outer_t { inner_t inner; mtag_t tag; }
struct meta_t { outer_t outer; inner_t copy; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.outer.inner.a = 0x10;
        m.outer.inner.b.c = 0x20;
        m.outer.tag.setValid();
        m.outer.tag.v = 0xbeef;
        m.copy = m.outer.inner;
        h.d.f1 = m.outer.inner.a + (bit<32>)m.outer.inner.b.c;
        h.d.b1 = m.copy.b.c;
        if (m.outer.tag.isValid()) { h.d.h1 = m.outer.tag.v; }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
