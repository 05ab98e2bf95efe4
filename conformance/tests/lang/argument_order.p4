// Checks: the arguments of a call are evaluated once each, left to right (spec: calls
// evaluate their arguments in order, side effects included), also when each argument is
// itself a call with an inout argument on the same field: two(g(b1), g(b1)) sees 4 then 5
// for b1 = 3, and b1 ends at 5; the same for an extern method's arguments (register.write
// with index g(b2) and value g(b2): index 1 gets value 2 for b2 = 0, read back into h1).
// Expected packets: by hand: b1 = 3 -> two(4, 5) = 4 - 5 = 0xff in m.x; b1 ends 5; b2 = 0 ->
// write(1, 2), b2 ends 2; h1 = (cell 1) << 8 | m.x = 0x02ff.
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
bit<8> g(inout bit<8> v) { v = v + 1; return v; }
bit<8> two(in bit<8> a, in bit<8> b) { return a - b; }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<8>>(4) r;
    apply {
        m.x = two(g(h.d.b1), g(h.d.b1));
        r.write((bit<32>)g(h.d.b2), g(h.d.b2));
        bit<8> c;
        r.read(c, 1);
        h.d.h1 = c ++ m.x;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
