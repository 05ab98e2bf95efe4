// Checks: side effects happen exactly as written: in `c ? f(a) : f(b)` only the chosen
// call runs; `h = g(h.x)` with an inout argument ends with g's result in h (the argument's
// copy-out comes before the assignment); an action that exits still copies its inout
// argument back (spec: exit).
// Expected packets: by hand: b1 = 1 -> bump(d.x) runs, d.y untouched: x = 0x11, y = 0x20;
// h.e = fresh(h.e.c) -> e.c = 0x99 (the result), not the copied-back 0x42;
// stop_after(d.b2) sets b2 = 0x77 and exits (egress_spec was set before).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<8> x; bit<8> y; }
header extra_t { bit<8> c; }
struct headers_t { ethernet_t eth; data_t d; extra_t e; }
struct meta_t { }

bit<8> bump(inout bit<8> v) { v = v + 1; return v; }
extra_t fresh(inout bit<8> c) { c = 0x42; return { 0x99 }; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); pkt.extract(h.e); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action stop_after(inout bit<8> v) { v = 0x77; exit; }
    apply {
        bit<8> r = (h.d.b1 == 1) ? bump(h.d.x) : bump(h.d.y);
        h.e = fresh(h.e.c);
        sm.egress_spec = 1;
        stop_after(h.d.b2);
        h.d.b2 = 0;  // not reached
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); pkt.emit(h.e); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
