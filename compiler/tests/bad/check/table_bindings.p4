// Table rules of p4c's front end: an actions list binds every directional parameter, and
// the default action and entries repeat those arguments; '.a' names the top-level action;
// the actions list comes before the default action; entries need a key.
#include <core.p4>

action top_level() { }
control C(inout bit<8> x, inout bit<8> y) {
    action set(inout bit<8> dst, bit<8> v) { dst = v; }
    action top_level() { }
    table unbound {
        key = { x: exact; }
        actions = { set; }                            // 'dst' not bound
    }
    table other_arg {
        key = { x: exact; }
        actions = { set(x); top_level; }
        default_action = set(y, 1);                   // binds y where the list binds x
        entries = { 1 : set(x, 2); 2 : set(y, 3); }   // the second entry binds y
    }
    table wrong_default {
        actions = { top_level; }
        default_action = .top_level();               // the top-level action, not the listed one
    }
    table late_list {
        default_action = top_level;                   // before the actions list
        actions = { top_level; }
    }
    table keyless {
        actions = { top_level; }
        const entries = { _ : top_level(); }          // entries without a key
    }
    apply { }
}
