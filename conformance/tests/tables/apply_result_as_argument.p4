// Checks: `t.apply().hit` as a function argument and `u.apply().miss` as the condition
// of ?: nested inside another ?: (spec, table invocation: the apply result is an ordinary value);
// each table is applied exactly once per packet (t's action adds 1 to h1's high byte, so a
// second apply would show).
// Expected packets: by hand: t hits b1 = 1 (bump: h1 += 0x100), u hits b2 = 2.
//   (01 02): pick(true, 7) = 7 -> low byte of h1 = 7, h1 = 0x0107; u hit -> b1 = 0x0b.
//   (05 05): pick(false, 7) = 0, h1 = 0x0000; u miss -> b1 = 0x0c (inner ?: on b2 == 5).
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
bit<8> pick(in bool c, in bit<8> a) { return c ? a : 8w0; }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action bump() { h.d.h1 = h.d.h1 + 0x100; }
    action nop() { }
    table t {
        key = { h.d.b1 : exact; }
        actions = { bump; nop; }
        default_action = nop;
        const entries = { 1 : bump(); }
    }
    table u {
        key = { h.d.b2 : exact; }
        actions = { nop; }
        default_action = nop;
        const entries = { 2 : nop(); }
    }
    apply {
        h.d.h1 = h.d.h1 | (bit<16>)pick(t.apply().hit, 8w7);
        h.d.b1 = u.apply().miss ? (h.d.b2 == 5 ? 8w0x0c : 8w0x0d) : 8w0x0b;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
