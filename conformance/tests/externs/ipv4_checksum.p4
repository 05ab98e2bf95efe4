// Checks: verify_checksum in the checksum-verification control sets checksum_error for a
// wrong IPv4 checksum (ingress: port 2) but not for a right one (port 1); ingress
// decrements ttl and update_checksum in the checksum-update control rewrites the
// checksum, so both packets leave with a correct checksum for ttl - 1.
// Expected packets: checksums computed with Python (RFC 1071 ones' complement sum).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { ethernet_t eth; ipv4_t ip; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.ip); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) {
    apply {
        verify_checksum(true,
            { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags, h.ip.frag,
              h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst },
            h.ip.csum, HashAlgorithm.csum16);
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.checksum_error == 1) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
        h.ip.ttl = h.ip.ttl - 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) {
    apply {
        update_checksum(true,
            { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags, h.ip.frag,
              h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst },
            h.ip.csum, HashAlgorithm.csum16);
    }
}
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.ip); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
