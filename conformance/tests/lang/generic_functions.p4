// Checks: generic functions (P4-16: type parameters inferred at each call), compiled as one
// copy per set of types: pick<T> returns its type variable and is called with bit<8> and a
// header, pick2<T> (bit<16>) calls pick with its own T, swap<T> exchanges two inout bit<8>.
// sel == 1: a = a, c = c, p = q; else a = b, c = d, p = p; then swap(b, sel), swap(q.x, q.y).
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> sel; bit<8> a; bit<8> b; bit<16> c; bit<16> d; }
header pair_t { bit<8> x; bit<8> y; }
struct headers_t { ethernet_t eth; data_t d; pair_t p; pair_t q; }
struct meta_t { bit<8> unused; }

T pick<T>(in bool c, in T a, in T b) {
    if (c) {
        return a;
    }
    return b;
}
T pick2<T>(in bool c, in T a, in T b) { return pick(!c, b, a); }
void swap<T>(inout T x, inout T y) { T t = x; x = y; y = t; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); pkt.extract(h.p); pkt.extract(h.q); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        bool s = h.d.sel == 1;
        h.d.a = pick(s, h.d.a, h.d.b);
        h.d.c = pick2(s, h.d.c, h.d.d);
        h.p = pick(s, h.q, h.p);
        swap(h.d.b, h.d.sel);
        swap(h.q.x, h.q.y);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); pkt.emit(h.p); pkt.emit(h.q); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
