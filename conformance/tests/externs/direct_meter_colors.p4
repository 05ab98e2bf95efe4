// Checks: a direct meter configured per table entry over P4Runtime (DirectMeterEntry) and
// read by the entry's action: entry f1=1 has CIR = 1 pkt/s, CBS = 1, PIR = 1 pkt/s,
// PBS = 2 -> green, yellow, red for three back-to-back packets; entry f1=2 is not
// configured -> green. b2 = colour.
// Expected packets: by hand from RFC 2698 (buckets start full).
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
    direct_meter<bit<8>>(MeterType.packets) dm;
    action metered() { dm.read(h.d.b2); }
    table t {
        key = { h.d.f1: exact; }
        actions = { metered; NoAction; }
        default_action = NoAction();
        meters = dm;
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
