//! The unicast fast path allocates nothing per packet: after warm-up, routing
//! L3 frames through the fixture performs zero heap allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use p4engine::*;

struct Counting;

thread_local! {
    // Per thread: libtest's main thread allocates while the test runs (it
    // records the running test after spawning it; under load, late), and
    // only the thread that processes the packets is under test.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn routing_a_packet_allocates_nothing() {
    let sw = Switch::new(SwitchConfig::default());
    sw.set_program(load_program(include_str!("../fixtures/l3_acl.json")).unwrap());
    let act = |a: &str, p: Vec<Vec<u8>>| EntryAction::Action(ActionSpec { action: a.into(), params: p });
    sw.table_insert(
        "MyIngress.ipv4_lpm",
        TableEntry { key: vec![MatchKey::Lpm(vec![10, 0, 0, 0], 8)], action: act("MyIngress.set_nhop", vec![vec![0, 1]]), priority: 0, idle_timeout_ns: 0 },
    )
    .unwrap();
    sw.table_insert(
        "MyIngress.nexthop",
        TableEntry {
            key: vec![MatchKey::Exact(vec![0, 1])],
            action: act("MyIngress.set_dmac_port", vec![vec![1; 6], vec![2; 6], vec![0, 3]]),
            priority: 0,
            idle_timeout_ns: 0,
        },
    )
    .unwrap();
    sw.table_insert(
        "MyIngress.acl",
        TableEntry {
            key: vec![
                MatchKey::Ternary(vec![192, 168, 0, 0], vec![255, 255, 0, 0]),
                MatchKey::Ternary(vec![0; 4], vec![0; 4]),
                MatchKey::Ternary(vec![6], vec![255]),
            ],
            action: act("MyIngress.acl_deny", vec![]),
            priority: 1,
            idle_timeout_ns: 0,
        },
    )
    .unwrap();
    let mut frame = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 8, 0];
    frame.extend_from_slice(&[0x45, 0, 0, 50, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 1, 2, 3]);
    frame.resize(64, 0);
    let mut w = sw.new_worker();
    let mut sent = 0;
    for _ in 0..100 {
        sw.process(&mut w, 1, &frame, &mut |_, _| sent += 1);
    }
    let before = ALLOCS.with(Cell::get);
    for _ in 0..10_000 {
        sw.process(&mut w, 1, &frame, &mut |_, _| sent += 1);
    }
    let after = ALLOCS.with(Cell::get);
    assert_eq!(sent, 10_100, "every frame routed");
    assert_eq!(after - before, 0, "heap allocations while routing 10,000 frames");
}
