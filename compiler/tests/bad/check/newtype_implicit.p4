// A 'type' is distinct from its base: values convert only by an explicit cast, and
// operators other than ==/!= between two values of the same 'type' need a cast first.
// Unsized constants may still initialise it.
#include <core.p4>
type bit<16> Port;
control C(in Port p, inout bit<16> raw) {
    apply {
        Port q = 5;
        Port r = (Port)raw;
        bool same = q == p;
        Port s = raw;
        raw = p;
        Port t = p + q;
        bool u = p == 7;
        Port v = -p;
    }
}
