// A table without default_action defaults to NoAction, which must then be core.p4's:
// an action without parameters. This program declares its own, with a parameter.
action NoAction(bit<4> code) { }
control C() {
    action hit() { }
    table t {
        actions = { hit; }
    }
    apply { t.apply(); }
}
