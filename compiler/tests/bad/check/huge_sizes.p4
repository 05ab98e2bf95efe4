// Sizes a user can write, each far too large: refused at once with its location
// (never a hang or an out-of-memory), in every position the grammar allows them.
#include <core.p4>
#include <v1model.p4>
header mpls_t { bit<20> label; bit<3> tc; bit<1> s; bit<8> ttl; }
header wide_t { bit<100000> f; varbit<999999999999999999999999999999> v; }
header w2048_t { bit<2048> a; }
typedef mpls_t[999999999999999999999999999999] huge_stack_t;
const int N = 999999999999999999999999999999;
struct hs_t { mpls_t[999999999999999999999999999999] mpls; huge_stack_t t; mpls_t[N] n; mpls_t[4097] just_over; w2048_t w; }
struct m_t { bit<32> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(4294967296) vs;
    state start { transition select(8w1) { vs: accept; default: accept; } }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    mpls_t[999999999999999999999999999999] local_stack;
    action a() { }
    table t {
        key = { meta.x : ternary; }
        actions = { a; }
        size = 999999999999999999999999999999;
        entries = { priority = 4294967296 : 1 &&& 1 : a(); }
    }
    apply {
        bit<999999999999999999999999999999> v = 0;
        meta.x = (bit<32>)100000w5;
        meta.x = meta.x << 999999999999999999999999999999;
        meta.x = meta.x << 300;
        meta.x = (bit<32>)(1 << 3000);
        meta.x = (bit<32>)(32w1 << 5000);
        meta.x = (bit<32>)(hdr.w.a ++ hdr.w.a);
        t.apply();
    }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
