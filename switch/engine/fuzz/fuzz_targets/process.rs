//! Any frame through the L3 + ACL fixture with a few routes: no panic, at most one output.
#![no_main]
use libfuzzer_sys::fuzz_target;
use p4engine::*;
use std::sync::OnceLock;

fn switch() -> &'static Switch {
    static SW: OnceLock<Switch> = OnceLock::new();
    SW.get_or_init(|| {
        let sw = Switch::new(SwitchConfig::default());
        sw.set_program(load_program(include_str!("../../fixtures/l3_acl.json")).expect("fixture"));
        let route = |p: Vec<u8>, len| TableEntry {
            key: vec![MatchKey::Lpm(p, len)],
            action: EntryAction::Action(ActionSpec { action: "MyIngress.set_nhop".into(), params: vec![vec![0, 1]] }),
            priority: 0,
            idle_timeout_ns: 0,
        };
        let _ = sw.table_insert("MyIngress.ipv4_lpm", route(vec![10, 0, 0, 0], 8));
        let _ = sw.table_insert("MyIngress.ipv4_lpm", route(vec![0, 0, 0, 0], 0));
        let _ = sw.table_insert(
            "MyIngress.nexthop",
            TableEntry {
                key: vec![MatchKey::Exact(vec![0, 1])],
                action: EntryAction::Action(ActionSpec {
                    action: "MyIngress.set_dmac_port".into(),
                    params: vec![vec![1; 6], vec![2; 6], vec![0, 3]],
                }),
                priority: 0,
                idle_timeout_ns: 0,
            },
        );
        sw
    })
}

fuzz_target!(|data: &[u8]| {
    let sw = switch();
    let mut w = sw.new_worker();
    let port = data.first().copied().unwrap_or(0) as u32;
    let mut n = 0;
    sw.process(&mut w, port, data.get(1..).unwrap_or(&[]), &mut |_, _| n += 1);
    assert!(n <= 1);
});
