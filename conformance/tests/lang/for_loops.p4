// Checks: `for` loops (P4-16 1.2.4), unrolled at compile time:
// - `for (init; cond; update)` with a constant bound, in an action: sum = 1 + 2 + 3 + 4 = 10;
// - `for (T i in 0 .. 3)` (both ends included) indexing a header stack: s[i].v += i;
// - `break` and `continue`: odd i below 7 (break at 7) add up to 1 + 3 + 5 = 9;
// - `for (T e in stack)`: total of the four elements after the action;
// - nested: `for (k in {3, 5}) for (j in 1 .. k)` runs 3 + 5 = 8 times;
// - a loop variable assigned outside the loop keeps its last value (n = 4 after the loop).
// Expected packets: by hand (second packet: the stack 01 02 03 04 becomes 01 03 05 07,
// total 16 + 8 = 24 = 0x18).
// needs p4c 1.2.4.12: 'for' loops (P4-16 1.2.4)
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> count; bit<32> sum; bit<32> product; bit<8> last; }
header e_t { bit<8> v; }
struct hs_t { h_t h; e_t[4] s; }
struct m_t { bit<8> x; }
const bit<8> N = 4;

parser P(packet_in p, out hs_t h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        p.extract(h.h);
        p.extract(h.s.next);
        p.extract(h.s.next);
        p.extract(h.s.next);
        p.extract(h.s.next);
        transition accept;
    }
}
control I(inout hs_t h, inout m_t m, inout standard_metadata_t sm) {
    action sums() {
        h.h.sum = 0;
        for (bit<8> i = 1; i <= N; i = i + 1) {
            h.h.sum = h.h.sum + (bit<32>)i;
        }
        for (bit<8> i in 0 .. 3) {
            h.s[i].v = h.s[i].v + i;
        }
    }
    apply {
        sums();
        h.h.product = 0;
        for (bit<8> i = 0; i < 10; i = i + 1) {
            if (i == 7) {
                break;
            }
            if ((i & 1) == 0) {
                continue;
            }
            h.h.product = h.h.product + (bit<32>)i;
        }
        bit<8> total = 0;
        for (e_t e in h.s) {
            total = total + e.v;
        }
        for (bit<8> k in {8w3, 8w5}) {
            for (bit<8> j in 1 .. k) {
                total = total + 1;
            }
        }
        h.h.count = total;
        bit<8> n;
        for (n = 0; n < 4; n = n + 1) { }
        h.h.last = n;
        sm.egress_spec = 1;
    }
}
control VC(inout hs_t h, inout m_t m) { apply { } }
control E(inout hs_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t h, inout m_t m) { apply { } }
control D(packet_out p, in hs_t h) { apply { p.emit(h.h); p.emit(h.s); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
