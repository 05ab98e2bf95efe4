// Checks: a select with no matching case and no default sets parser_error = error.NoMatch;
// ingress still runs and sends the packet to port 4 (etype 0x1234 packets go to 1).
// Expected packets: by hand; output = input.
// not on p4c: its BMv2 back end writes a select without default as it is (no NoMatch transition; through 1.2.5.16), and BMv2 then accepts with parser_error NoError
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x1234: parse_d;
        }
    }
    state parse_d { pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.NoMatch) { sm.egress_spec = 4; }
        else { sm.egress_spec = 1; }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
