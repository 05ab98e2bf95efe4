// Checks: a direct counter counts the hits of each entry of its table (packets and bytes),
// read back over P4Runtime per entry; misses are not counted on any entry, and forwarding
// is not disturbed (hits set b1 = 0x44).
// Expected: by hand: entry f1=1 is hit twice by 28-byte packets (56 bytes), entry f1=3
// never.
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
    direct_counter(CounterType.packets_and_bytes) dc;
    action hit() { h.d.b1 = 0x44; }
    table t {
        key = { h.d.f1: exact; }
        actions = { hit; NoAction; }
        default_action = NoAction();
        counters = dc;
    }
    apply {
        t.apply();
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
