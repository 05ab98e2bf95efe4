// Checks: functions called in parser states (spec, functions: a function may be called wherever an
// expression may appear): one taking a whole header from lookahead<data_t>() as its `in`
// argument (the packet is not advanced), one with an `inout` argument (copied back), and
// one whose result is used as a select key.
// Expected packets: by hand. first(d) = d.b1 == 1; bump(v) adds 3 to v and returns v + 1.
//   01 02 00 10: first -> m.x = 0x11; bump(m.x) -> m.x = 0x14, m.y = 0x15; kind(b2 = 2) = 2
//     -> state two: h1 := 0x0002 | m.y << 8 = 0x1502; b1 := m.x = 0x14 (ingress).
//   03 07 00 10: m.x = 0x22 -> 0x25, m.y = 0x26; kind(7) = 0 -> default: h1 stays 0x0010,
//     b1 := 0x25.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<8> y; }

bool first(in data_t d) { return d.b1 == 1; }
bit<8> bump(inout bit<8> v) { v = v + 3; return v + 1; }
bit<8> kind(in bit<8> b) { return b & 0x03; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        m.x = first(pkt.lookahead<data_t>()) ? 8w0x11 : 8w0x22;
        m.y = bump(m.x);
        pkt.extract(h.d);
        transition select(kind(h.d.b2)) {
            2: two;
            default: accept;
        }
    }
    state two { h.d.h1 = 16w0x0002 | (bit<16>)m.y << 8; transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.b1 = m.x; sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
