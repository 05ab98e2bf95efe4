// Checks: an extern instance passed as a control's constructor argument: two controls
// given the same register use that one object (one register array, named where it is
// declared: Ing.shared), so what the first writes the second reads in the same packet.
// Expected packets: by hand: step_in stores f1 + 1 in cell 0 and copies it into f2;
// step_out reads cell 0 into h1's low byte path (b2); 1st packet f1 = 5 -> f2 = 6,
// b2 = 6; 2nd packet f1 = 9 -> f2 = 10, b2 = 10 (the cell was overwritten).
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> cell; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control step_in(inout headers_t h)(register<bit<32>, bit<32>> cells) {
    apply {
        cells.write(0, h.d.f1 + 1);
        h.d.f2 = h.d.f1 + 1;
    }
}
control step_out(inout headers_t h, inout meta_t m)(register<bit<32>, bit<32>> cells) {
    apply {
        cells.read(m.cell, 0);
        h.d.b2 = m.cell[7:0];
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<32>, bit<32>>(4) shared;
    step_in(shared) first;
    step_out(shared) second;
    apply {
        first.apply(h);
        second.apply(h, m);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
