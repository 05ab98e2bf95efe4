// Checks: an E2E clone is made even when egress marks the original to drop (clones come
// before the drop decision after egress): only the clone leaves, on session 6's port 4,
// with b1 = instance_type 2.
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
    apply {
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            clone(CloneType.E2E, 32w6);
            mark_to_drop(sm);
        }
        h.d.b1 = (bit<8>)sm.instance_type;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
