// Checks the runner's phases: control and check commands between packets take effect
// exactly there (a new default action, a new entry, counter checks in between), and
// the data-plane state (a register counting packets, a counter) carries over from one
// phase to the next. Each packet's second byte becomes the register's count after it.
// Expected packets by hand: packet 1 hits k=1 -> port 1, count 1; packet 2 misses
// (default changed to port 2), count 2; packet 3 hits the entry added after packet 2
// -> port 3, count 3.
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

header h_t { bit<8> k; bit<8> n; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    counter<bit<1>>(1, CounterType.packets) packets_seen;
    register<bit<8>, bit<1>>(1) count;
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t {
        key = { hdr.h.k : exact; }
        actions = { fwd; }
        default_action = fwd(9);
    }
    apply {
        packets_seen.count(0);
        bit<8> n;
        count.read(n, 0);
        n = n + 1;
        count.write(0, n);
        hdr.h.n = n;
        t.apply();
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
