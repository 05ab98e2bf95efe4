// Checks: stack elements chosen by a run-time index where BMv2 needs a fixed one (the
// compiler turns each such statement, or the condition of such an if, into a chain of ifs
// over the constant indexes, as p4c's midend does): setInvalid of s[i] in a parser state, a
// whole header assigned to s[i] and read from s[j] in ingress, a stack of header unions
// indexed at run time (a member made valid and written; its validity as a condition), and
// a whole element compared in a condition. An index past the end changes nothing.
// Indexes: i = b1[1:0], j = b1[3:2], u = b1[4:4], w = b1[0:0]; the parser invalidates
// s[b2[1:0]]. Ingress: s[i] = t = {0x99}; r = s[j]; h1 = r valid ? 0x01 ++ r.v : 0;
// us[u].a = valid 0x55; b2 = us[0].a valid ? us[0].a.v : 0xee; b2 += 1 if us[w].a is valid;
// b1 |= 0x80 if s[j] == t. The deparser emits eth, d, then the valid labels.
// Expected packets: by hand (labels in: 0a 0b 0c):
//   b1 0x01, b2 0x02: s[2] dropped; s[1] = 99; r = s[0] = 0a -> h1 0x010a; b2 0x55
//     (us[1] invalid); s[0] != t.
//   b1 0x1a, b2 0x03: nothing dropped (index 3); s[2] = 99; r = s[2] -> 0x0199; us[1] set,
//     so b2 0xee and us[0] invalid; s[2] == t -> b1 0x9a.
//   b1 0x00, b2 0x00: s[0] dropped then set again to 99; r = s[0] -> 0x0199; b2 0x55 + 1;
//     s[0] == t -> b1 0x80.
//   b1 0x04, b2 0x01: s[1] dropped; s[0] = 99; r = s[1] (invalid) -> h1 0; b2 0x56;
//     s[1] invalid, t valid: not equal.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
header lab_t { bit<8> v; }
header_union uu_t { lab_t a; data_t b; }
struct headers_t { ethernet_t eth; data_t d; lab_t[3] s; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.d);
        pkt.extract(h.s[0]);
        pkt.extract(h.s[1]);
        pkt.extract(h.s[2]);
        h.s[h.d.b2[1:0]].setInvalid();
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        bit<2> i = h.d.b1[1:0];
        lab_t t = { 0x99 };
        h.s[i] = t;
        lab_t r = h.s[h.d.b1[3:2]];
        h.d.h1 = r.isValid() ? 8w1 ++ r.v : 16w0;
        uu_t[2] us;
        us[h.d.b1[4:4]].a.setValid();
        us[h.d.b1[4:4]].a.v = 0x55;
        h.d.b2 = us[0].a.isValid() ? us[0].a.v : 8w0xee;
        if (us[h.d.b1[0:0]].a.isValid()) { h.d.b2 = h.d.b2 + 1; }
        if (h.s[h.d.b1[3:2]] == t) { h.d.b1 = h.d.b1 | 0x80; }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); pkt.emit(h.s); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
