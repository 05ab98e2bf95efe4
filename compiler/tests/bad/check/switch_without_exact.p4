// A switch on a value is carried out as an exact-match table: without core.p4 there is
// no match_kind 'exact' for it (checked, as p4c does, in a program with a main package).
match_kind { lpm }
control C(in bit<4> x) {
    apply {
        switch (x) {
            1: { }
            default: { }
        }
    }
}
control Ctl(in bit<4> x);
package P(Ctl c);
P(C()) main;
