// Checks: verify_checksum_with_payload / update_checksum_with_payload cover the field list
// and the payload (the bytes after the last header): a wrong checksum sets checksum_error
// (port 2), a right one does not (port 1); ingress sets a = a + 1 and the update rewrites
// the checksum over the new a and the payload.
// Expected packets: checksums computed with Python (ones' complement sum of a and payload).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header x_t { bit<16> a; bit<16> csum; }
struct headers_t { ethernet_t eth; x_t x; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.x); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) {
    apply {
        verify_checksum_with_payload(true, { h.x.a }, h.x.csum, HashAlgorithm.csum16);
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.checksum_error == 1) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
        h.x.a = h.x.a + 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) {
    apply {
        update_checksum_with_payload(true, { h.x.a }, h.x.csum, HashAlgorithm.csum16);
    }
}
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.x); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
