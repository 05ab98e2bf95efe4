// Checks: a control instance passed as a constructor argument to two other controls
// (spec 15.1: control-typed constructor parameters): both apply the same instance, whose
// counter and behaviour are shared. Each wrapper transforms the value, then applies the
// shared instance.
// Expected packets: by hand, etype 0xcafe:
//   Twice: x << 1 = 0x95fc; Inc: 0x95fd;  Thrice: x << 3 = 0xafe8; Inc: 0xafe9.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { ethernet_t eth; }
struct meta_t { }

control Step(inout bit<16> x);
control Inc(inout bit<16> x) {
    counter(32w1024, CounterType.packets) seen;
    apply {
        x = x + 1;
        seen.count((bit<32>)x[9:0]);
    }
}
control Twice(inout bit<16> x)(Step next) {
    apply { x = x << 1; next.apply(x); }
}
control Thrice(inout bit<16> x)(Step next) {
    apply { x = x << 3; next.apply(x); }
}
control Chain(inout bit<16> x) {
    Inc() inc;
    Twice(inc) first;
    Thrice(inc) second;
    apply { first.apply(x); second.apply(x); }
}

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Chain() chain;
    apply { chain.apply(h.eth.etype); sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
