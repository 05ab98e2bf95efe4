// Checks: `list<T>` (P4-16 1.2.4) as the type of a list expression, `(list<bit<8>>){1, 2, 4, 8}`,
// iterated by `for (bit<8> v in ...)` (unrolled): sum and count of the list's values whose
// bits are set in d.mask (mask 0b1011: 1 + 2 + 8 = 11 in 3 values; mask 0b0110: 6 in 2).
// Expected packets: by hand.
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> mask; bit<16> sum; bit<8> count; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        bit<16> sum = 0;
        bit<8> count = 0;
        for (bit<8> v in (list<bit<8>>){1, 2, 4, 8}) {
            if ((h.d.mask & v) != 0) {
                sum = sum + (bit<16>)v;
                count = count + 1;
            }
        }
        h.d.sum = sum;
        h.d.count = count;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
