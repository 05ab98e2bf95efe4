// Checks: a typedef of a type declared in place (`typedef header ethernet_h {...} ethernet_t;`,
// also struct and serializable enum): the alias names the type (the inner name names
// nothing afterwards, as in p4c). An ARP frame (etype compared with the enum member read
// through the alias) gets a broadcast destination; every frame gets a new source through a
// local header copied back.
// Expected packets: by hand.
// not on p4c: its front end declares the type written inside such a typedef nowhere (`ethernet_h: declaration not found` at the typedef; 1.2.4.8), though the grammar and the specification allow it
#include <core.p4>
#include <v1model.p4>

typedef header ethernet_h { bit<48> dst; bit<48> src; bit<16> etype; } ethernet_t;
typedef struct headers_s { ethernet_t eth; } headers_t;
typedef struct meta_s { bit<8> unused; } meta_t;
typedef enum bit<16> kinds_e { IPV4 = 0x0800, ARP = 0x0806 } kinds_t;

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        kinds_t k = kinds_t.ARP;
        if (h.eth.etype == (bit<16>)k) {
            h.eth.dst = 0xffffffffffff;
        }
        ethernet_t copy = h.eth;
        copy.src = 0x0a0b0c0d0e0f;
        h.eth = copy;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
