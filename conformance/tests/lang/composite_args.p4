// Checks: copy-in/copy-out for header and struct parameters (spec: a callee works on
// copies): an action given the same header as `inout a` and `in b` reads b's value from
// before the call even after writing a; a struct expression `{0x33, 0x44}` passed as an
// `in` struct argument; an `out` header argument starts invalid in the callee even when
// the caller's header is valid.
// Expected packets: by hand: b1 := 0x11, b2 := old b1 (0x05); f := {0x33, 0x44} -> x, y;
// the `out` header comes back valid with c = 0x66, emitted after d.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<8> x; bit<8> y; }
header extra_t { bit<8> c; }
struct pair_t { bit<8> p; bit<8> q; }
struct headers_t { ethernet_t eth; data_t d; extra_t e; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action write_then_read(inout data_t a, in data_t b) { a.b1 = 0x11; a.b2 = b.b1; }
    action set_from(in pair_t v) { h.d.x = v.p; h.d.y = v.q; }
    action make(out extra_t o) {
        bool was_valid = o.isValid();
        o.setValid();
        o.c = was_valid ? 8w0x77 : 8w0x66;
    }
    apply {
        write_then_read(h.d, h.d);
        set_from({8w0x33, 8w0x44});
        h.e.setValid();
        make(h.e);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); pkt.emit(h.e); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
