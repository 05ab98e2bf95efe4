// A stack of header unions reached through a run-time index where no statement can be
// rewritten into an if-chain over the constant indexes (stack_index.py rewrites assignments,
// calls, declarations and if conditions): a table key and a switch expression.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
header_union u_t { h_t x; h_t y; }
struct hs_t { h_t h; }
struct m_t { bit<8> x; bit<1> i; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    u_t[2] us;
    action nop() { }
    table t { key = { us[meta.i].x.a : exact; } actions = { nop; } }
    apply {
        t.apply();
        switch (us[meta.i].y.a) { 1: { meta.x = 1; } default: { } }
    }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
