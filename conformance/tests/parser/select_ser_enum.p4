// Checks: a serializable enum in a parser select (spec, select expressions: keyset expressions of the
// key's type): the key is a field cast to the enum, the cases are a member with a mask
// (Kind.A &&& 0xf0), a range of members (Kind.A .. Kind.B) beside a range of bits in a
// tuple, and '_'; a member cast from another enum with the same underlying type.
// Expected packets: by hand, first matching case wins (states write m.x, ingress b1 := m.x):
//   (b1 0x03, b2 0x15): 0x03 in 0..5 and 0x15 in 0x10..0x20 -> s1, x = 1;
//   (0x09, 0x35): not in 0..5; 0x35 & 0xf0 == Kind.C = 0x30 -> s2, x = (Kind)Other.X = 0x10;
//   (0x09, 0x15): neither -> default, x stays 0.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<16> y; }

enum bit<8> Kind { A = 0x10, B = 0x20, C = 0x30 }
enum bit<8> Other { X = 0x10 }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.d);
        transition select(h.d.b1, (Kind)h.d.b2) {
            (0 .. 5, Kind.A .. Kind.B): s1;
            (_, Kind.C &&& 0xf0): s2;
            default: accept;
        }
    }
    state s1 { m.x = 1; transition accept; }
    state s2 { m.x = (bit<8>)(Kind)(Other.X); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.b1 = m.x; sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
