// A switch has at most one 'default' label (reported at the switch, as p4c does).
#include <core.p4>
control C(inout bit<8> v) {
    action a() { v = 1; }
    action b() { v = 2; }
    table t { actions = { a; b; } }
    apply {
        switch (t.apply().action_run) {
            a: { }
            default: { v = 3; }
            default: { v = 4; }
        }
    }
}
