// Checks: action parameters of unusual widths (48, 9, 1, 128 bits) reach the action intact:
// dst MAC = 48-bit param, f1/f2 = top and bottom words of a 128-bit param, b1 = 1-bit param.
// The second packet's entry sets port 0x1FF (511, the drop port), so it is dropped.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action rewrite(bit<48> mac, bit<9> port, bit<1> flag, bit<128> big) {
        h.eth.dst = mac;
        sm.egress_spec = port;
        h.d.b1 = (bit<8>)flag;
        h.d.f1 = big[127:96];
        h.d.f2 = big[31:0];
    }
    table t {
        key = { h.d.h1: exact; }
        actions = { rewrite; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
