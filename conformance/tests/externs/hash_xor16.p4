// Checks: hash() with xor16 (XOR of the 16-bit words of {in1, in2}) and a crc16 result
// bounded to base 7 + (crc mod 1000).
// Expected packets: computed with Python (word XOR; CRC-16/ARC as in hash_algorithms).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header x_t { bit<32> in1; bit<32> in2; bit<16> x16; bit<16> c16b; }
struct headers_t { ethernet_t eth; x_t r; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.r); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hash(h.r.x16, HashAlgorithm.xor16, 16w0, { h.r.in1, h.r.in2 }, 32w0x10000);
        hash(h.r.c16b, HashAlgorithm.crc16, 16w7, { h.r.in1, h.r.in2 }, 32w1000);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.r); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
