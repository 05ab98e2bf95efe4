// Without core.p4 there is no NoAction for a table without default_action to fall back on.
control C() {
    action hit() { }
    table t {
        actions = { hit; }
    }
    table u {
        actions = { hit; }
        default_action = hit;
    }
    apply { t.apply(); u.apply(); }
}
