// Checks: resubmit_preserving_field_list(1) restarts ingress with the original packet
// (the first pass's header writes are lost), instance_type 6, and m.x preserved.
// Second pass: b1 = instance_type, f2 = m.x, port 2.
// Expected packets: by hand; b2 keeps its input value 0x10 because the first pass's write
// (b2 = 0xEE) is discarded with the first pass.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { @field_list(1) bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            m.x = 0xabcd0001;
            h.d.b2 = 0xee;
            sm.egress_spec = 1;
            resubmit_preserving_field_list(1);
        } else {
            h.d.b1 = (bit<8>)sm.instance_type;
            h.d.f2 = m.x;
            sm.egress_spec = 2;
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
