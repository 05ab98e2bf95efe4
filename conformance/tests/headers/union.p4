// Checks: a header_union holds at most one valid member: v4 packets go to port 2, v6 to 3;
// for v6 with first byte 0xFF ingress sets v4 valid (a = 0x01020304), which invalidates
// v6, so v4 is emitted in its place. A union with no valid member emits nothing (port 1).
// Expected packets: by hand (etype stays as it was; only the union bytes change).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header v4_t { bit<32> a; }
header v6_t { bit<64> a; }
header_union ip_u { v4_t v4; v6_t v6; }
struct headers_t { ethernet_t eth; ip_u u; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x0800: p4;
            0x86dd: p6;
            default: accept;
        }
    }
    state p4 { pkt.extract(h.u.v4); transition accept; }
    state p6 { pkt.extract(h.u.v6); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.u.v4.isValid()) {
            sm.egress_spec = 2;
        } else if (h.u.v6.isValid()) {
            sm.egress_spec = 3;
            if (h.u.v6.a[63:56] == 0xff) {
                h.u.v4.setValid();
                h.u.v4.a = 0x01020304;
            }
        } else {
            sm.egress_spec = 1;
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.u); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
