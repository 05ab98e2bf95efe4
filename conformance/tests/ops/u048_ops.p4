// Checks: unsigned bit operators at width 48: + - * & | ^ ~ unary-, << and >> by a
// constant and by a runtime amount (incl. >= width), saturating |+| |-|, and
// == != < <= > >= (packed as bits 7..2 of `cmp`), wrapping modulo 2^48.
// Expected packets: computed by conformance/gen/gen_ops.py with Python integers
// (results masked to 48 bits), independently of any switch.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ops_t {
    bit<48> a;
    bit<48> b;
    bit<8> s;
    bit<48> r_add;
    bit<48> r_sub;
    bit<48> r_mul;
    bit<48> r_and;
    bit<48> r_or;
    bit<48> r_xor;
    bit<48> r_not;
    bit<48> r_neg;
    bit<48> r_shl;
    bit<48> r_shr;
    bit<48> r_shl_rt;
    bit<48> r_shr_rt;
    bit<48> r_sadd;
    bit<48> r_ssub;
    bit<8> cmp;
}
struct headers_t { ethernet_t eth; ops_t ops; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.ops); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.ops.r_add = h.ops.a + h.ops.b;
        h.ops.r_sub = h.ops.a - h.ops.b;
        h.ops.r_mul = h.ops.a * h.ops.b;
        h.ops.r_and = h.ops.a & h.ops.b;
        h.ops.r_or = h.ops.a | h.ops.b;
        h.ops.r_xor = h.ops.a ^ h.ops.b;
        h.ops.r_not = ~h.ops.a;
        h.ops.r_neg = -h.ops.a;
        h.ops.r_shl = h.ops.a << 1;
        h.ops.r_shr = h.ops.a >> 1;
        h.ops.r_shl_rt = h.ops.a << h.ops.s;
        h.ops.r_shr_rt = h.ops.a >> h.ops.s;
        h.ops.r_sadd = h.ops.a |+| h.ops.b;
        h.ops.r_ssub = h.ops.a |-| h.ops.b;
        h.ops.cmp = (bit<1>)(h.ops.a == h.ops.b) ++ (bit<1>)(h.ops.a != h.ops.b) ++
                    (bit<1>)(h.ops.a < h.ops.b) ++ (bit<1>)(h.ops.a <= h.ops.b) ++
                    (bit<1>)(h.ops.a > h.ops.b) ++ (bit<1>)(h.ops.a >= h.ops.b) ++ 2w0;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.ops); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
