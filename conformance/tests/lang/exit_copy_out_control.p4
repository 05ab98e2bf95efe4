// Checks: exit inside a sub-control still copies its out/inout parameters back to the
// caller (spec, exit statement: the copy-out of the enclosing control and of all its
// callers still happens after an exit), while the rest of the caller is skipped;
// an invalid header passed `in` arrives invalid.
// Sub sets x = 5 (6 if its header argument is invalid), writes o = 0x77, then exits;
// ingress would set b1 = 9 and b2 = 0 afterwards.
// Expected packets: by hand: b1 = 5, b2 = 0x77 (copied out), h1 = 0x0001 (Sub's w = 1:
// the local header `spare` is never made valid); none of ingress's writes after the call.
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
control Sub(inout bit<8> x, out bit<8> o, in data_t d, in data_t spare, inout bit<16> w) {
    apply {
        x = 5;
        if (!d.isValid()) { x = 6; }
        o = 0x77;
        if (!spare.isValid()) { w = 1; }
        exit;
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Sub() s;
    apply {
        data_t spare;
        sm.egress_spec = 1;
        s.apply(h.d.b1, h.d.b2, h.d, spare, h.d.h1);
        h.d.b1 = 9;
        h.d.b2 = 0;
        h.d.h1 = 0xffff;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
