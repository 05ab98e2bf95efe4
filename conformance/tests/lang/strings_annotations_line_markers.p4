// Checks: the lexer and preprocessor constructs of real programs do not disturb the
// program around them: string literals spanning several lines (in annotations and in
// log_msg, one holding "//" and "/*" that are not comments and an escaped quote),
// structured annotations (`@a[k = v, ...]` and `@a[list]`) on a control, an action, a table
// and a key, and cpp line markers (`# N "file"`, `#line N "file"`) in the middle of the file.
// The control-plane names come from @name ("fwd", "go") as usual.
// Expected packets: by hand: an entry b1 = 5 -> go(3) writes b2 = 0xaa and sends to 3;
// a miss runs the default go(6) with the same b2.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
# 200 "generated/elsewhere.p4"
@owner[team = "conformance", note = "first line
second line // not a comment /* nor this */", level = 3]
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    @kinds["a", 2, true] @description("sets the port and marks
the packet \"seen\"")
    @name("go") action go(bit<9> port) {
        sm.egress_spec = port;
        h.d.b2 = 0xaa;
        log_msg("go: port {}
(a message on two lines)", { port });
    }
#line 40 "conformance/tests/lang/strings_annotations_line_markers.p4"
    @name("fwd") @limits[size = 4] table t {
        key = { h.d.b1 : exact @field["b1"]; }
        actions = { go; }
        default_action = go(6);
    }
    apply { t.apply(); }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
