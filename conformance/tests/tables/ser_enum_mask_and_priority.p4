// Checks: const entries keyed on a serializable enum with masks written as plain numbers
// (`Kind.B &&& 0xf0`) and `_`, and p4c's @priority(N) written after an entry's action (the
// grammar's place for an entry's annotations). That annotation is not in the spec: p4c
// writes N as BMv2's priority, where the SMALLEST wins, and BMv2 behaves so.
// Expected packets: by hand: kind 0x21 matches `Kind.B &&& 0xf0` (0x2*, priority 10)
// and `_` (priority 30) -> port 2; kind 0x11 = Kind.A (priority 20) -> port 1;
// kind 0x33 only `_` -> port 3.
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { A = 0x11, B = 0x20 }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> kind; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action to(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { h.d.kind: ternary; }
        actions = { to; }
        const entries = {
            (bit<8>)Kind.A : to(1) @priority(20);
            _ : to(3) @priority(30);
            (bit<8>)Kind.B &&& 0xf0 : to(2) @priority(10);
        }
        default_action = to(4);
    }
    apply {
        Kind k = (Kind)h.d.kind;
        switch (k) {
            Kind.A: { h.d.b2 = 0xaa; }
            default: { }
        }
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
