// Checks: generic headers and structs (spec 7.2.5 / 8.x: `header H<T>`, `struct S<T>`)
// specialized with different types, as packet headers, a local variable and a field of
// another struct.
// Expected packets: by hand: after Ethernet, tag8_t = tagged<bit<8>> (0x11) and
// tag16_t = tagged<bit<16>> (0x2233) are extracted; ingress swaps through a
// pair<bit<8>> local: p = { 0x11, 0x33 }; t8.v = p.second = 0x33;
// t16.v = p.first ++ 8w0x44 = 0x1144; the generic local header extra (tagged<bit<8>>)
// is made valid with 0x55 and emitted last, before the payload ca fe.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header tagged<T> { T v; }
struct pair<T> { T first; T second; }
struct headers_t { ethernet_t eth; tagged<bit<8>> t8; tagged<bit<16>> t16; tagged<bit<8>> extra; }
struct meta_t { pair<bit<16>> m; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.t8); pkt.extract(h.t16); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        pair<bit<8>> p = { h.t8.v, h.t16.v[7:0] };
        m.m = { h.t16.v, 0 };
        h.t8.v = p.second;
        h.t16.v = p.first ++ 8w0x44;
        tagged<bit<8>> x;
        x.setValid();
        x.v = 0x55;
        h.extra = x;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
