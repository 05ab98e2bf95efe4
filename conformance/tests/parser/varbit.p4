// Checks: a varbit<64> header extracted with a run-time length (n bytes) and emitted back;
// n = 0 and n = 3 parse (data follows at the right offset; ingress writes b1 = n, port 1);
// n = 9 exceeds the 64-bit maximum -> parser_error = error.HeaderTooShort (port 7).
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header len_t { bit<8> n; }
header opt_t { varbit<64> bytes; }
struct headers_t { ethernet_t eth; len_t l; opt_t opt; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.l);
        pkt.extract(h.opt, (bit<32>)h.l.n * 8);
        pkt.extract(h.d);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.HeaderTooShort) { sm.egress_spec = 7; }
        else { h.d.b1 = h.l.n; sm.egress_spec = 1; }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.l); pkt.emit(h.opt); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
