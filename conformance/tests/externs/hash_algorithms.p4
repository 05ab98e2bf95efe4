// Checks: hash() with crc32, crc16, identity and csum16 over {in1, in2} (identity over
// {x, y}), result = base + (hash mod max): crc32/crc16/csum16 with base 0 and max 2^32 /
// 2^16, and a bounded crc16 with base 100, max 7.
// Expected packets: computed with Python (zlib.crc32; CRC-16/ARC bit by bit, checked
// against its standard check value 0xBB3D; ones' complement sum), not with a switch.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header hash_t {
    bit<32> in1; bit<32> in2; bit<8> x; bit<8> y;
    bit<32> crc32; bit<16> crc16; bit<16> ident; bit<16> csum; bit<16> bounded;
}
struct headers_t { ethernet_t eth; hash_t r; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.r); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hash(h.r.crc32, HashAlgorithm.crc32, 32w0, { h.r.in1, h.r.in2 }, 64w0x100000000);
        hash(h.r.crc16, HashAlgorithm.crc16, 16w0, { h.r.in1, h.r.in2 }, 32w0x10000);
        hash(h.r.ident, HashAlgorithm.identity, 16w0, { h.r.x, h.r.y }, 32w0x10000);
        hash(h.r.csum, HashAlgorithm.csum16, 16w0, { h.r.in1, h.r.in2 }, 32w0x10000);
        hash(h.r.bounded, HashAlgorithm.crc16, 16w100, { h.r.in1, h.r.in2 }, 32w7);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.r); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
