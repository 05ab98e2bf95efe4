//! Table writes staged in a [`TableBatch`] and published together: packets
//! and reads see nothing of a batch until it is published, then all of it;
//! each update's result is final when it is made; one publish is one swap;
//! a packet thread holding the old snapshot neither blocks the writer nor
//! sees a half-written table; and whatever the order of batches, publishes
//! and held snapshots, the table is what a plain model says.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::*;
use crate::exec::tests::L3;

fn l3() -> Switch {
    let sw = Switch::new(SwitchConfig::default());
    sw.set_program(load_program(L3).expect("fixture loads"));
    sw
}

fn route(a: u8, b: u8, plen: u32, nh: u8) -> TableEntry {
    TableEntry {
        key: vec![MatchKey::Lpm(vec![10, a, b, 0], plen)],
        action: EntryAction::Action(ActionSpec { action: "MyIngress.set_nhop".into(), params: vec![vec![0, nh]] }),
        priority: 0,
        idle_timeout_ns: 0,
    }
}

fn nexthop(nh: u16, port: u8) -> TableEntry {
    TableEntry {
        key: vec![MatchKey::Exact(nh.to_be_bytes().to_vec())],
        action: EntryAction::Action(ActionSpec {
            action: "MyIngress.set_dmac_port".into(),
            params: vec![vec![0xaa; 6], vec![0xbb; 6], vec![0, port]],
        }),
        priority: 0,
        idle_timeout_ns: 0,
    }
}

fn ports(sw: &Switch, w: &mut Worker, dst: [u8; 4]) -> Vec<u32> {
    let mut out = Vec::new();
    sw.process(w, 1, &crate::exec::tests::ipv4_frame(dst, 64), &mut |p, _| out.push(p));
    out
}

fn snapshot(sw: &Switch, table: &str) -> Arc<crate::table::TableState> {
    let rt = sw.rt().expect("program");
    let t = rt.prog.tables.iter().position(|t| t.name == table).expect("table");
    rt.tables[t].load_full()
}

#[test]
fn a_batch_is_invisible_until_published_and_then_whole() {
    let sw = l3();
    sw.table_insert("MyIngress.nexthop", nexthop(7, 3)).unwrap();
    let mut w = sw.new_worker();
    let before = snapshot(&sw, "MyIngress.ipv4_lpm");
    let mut b = sw.table_batch();
    b.insert("MyIngress.ipv4_lpm", route(1, 0, 16, 7)).unwrap();
    b.insert("MyIngress.ipv4_lpm", route(2, 0, 16, 7)).unwrap();
    // each result is final and the next update sees the staged ones
    assert!(matches!(b.insert("MyIngress.ipv4_lpm", route(1, 0, 16, 8)), Err(ApiError::AlreadyExists(_))));
    assert!(matches!(b.delete("MyIngress.ipv4_lpm", &[MatchKey::Lpm(vec![10, 3, 0, 0], 16)], 0), Err(ApiError::NotFound(_))));
    b.modify("MyIngress.ipv4_lpm", route(2, 0, 16, 9)).unwrap();
    b.insert("MyIngress.ipv4_lpm", route(3, 0, 16, 7)).unwrap();
    b.delete("MyIngress.ipv4_lpm", &[MatchKey::Lpm(vec![10, 3, 0, 0], 16)], 0).unwrap();
    // nothing published yet: same snapshot, packets miss, reads see nothing
    assert!(Arc::ptr_eq(&before, &snapshot(&sw, "MyIngress.ipv4_lpm")), "no swap before publish");
    assert!(ports(&sw, &mut w, [10, 1, 0, 5]).is_empty());
    assert_eq!(sw.table_len("MyIngress.ipv4_lpm").unwrap(), 0);
    assert!(sw.table_read("MyIngress.ipv4_lpm").unwrap().is_empty());
    b.publish();
    let after = snapshot(&sw, "MyIngress.ipv4_lpm");
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(ports(&sw, &mut w, [10, 1, 0, 5]), vec![3]);
    assert!(ports(&sw, &mut w, [10, 3, 0, 5]).is_empty(), "inserted and deleted in the batch");
    let read: Vec<TableEntry> = sw.table_read("MyIngress.ipv4_lpm").unwrap().into_iter().map(|e| e.entry).collect();
    let mut want = vec![route(1, 0, 16, 7), route(2, 0, 16, 9)];
    for e in &mut want {
        // read back canonical: full-width bytes
        if let MatchKey::Lpm(v, _) = &mut e.key[0] {
            v.resize(4, 0);
        }
    }
    assert_eq!(read.len(), 2);
    for e in &want {
        assert!(read.iter().any(|r| r.key == e.key && r.action == e.action), "{:?} not in {read:?}", e.key);
    }
    // an empty publish swaps nothing; the batch goes on and its drop publishes
    b.publish();
    assert!(Arc::ptr_eq(&after, &snapshot(&sw, "MyIngress.ipv4_lpm")));
    b.insert("MyIngress.ipv4_lpm", route(4, 0, 16, 7)).unwrap();
    assert!(ports(&sw, &mut w, [10, 4, 0, 1]).is_empty());
    drop(b);
    assert_eq!(ports(&sw, &mut w, [10, 4, 0, 1]), vec![3]);
}

#[test]
fn a_packet_thread_holding_the_old_snapshot_sees_it_whole() {
    let sw = l3();
    sw.table_insert("MyIngress.nexthop", nexthop(7, 3)).unwrap();
    sw.table_insert("MyIngress.nexthop", nexthop(8, 4)).unwrap();
    sw.table_insert("MyIngress.ipv4_lpm", route(1, 0, 16, 7)).unwrap();
    let mut pinned = sw.new_worker();
    sw.pin(&mut pinned);
    let mut b = sw.table_batch();
    b.modify("MyIngress.ipv4_lpm", route(1, 0, 16, 8)).unwrap();
    b.insert("MyIngress.ipv4_lpm", route(2, 0, 16, 8)).unwrap();
    b.publish();
    // a second batch while the old snapshot is still held: the writer copies
    b.insert("MyIngress.ipv4_lpm", route(5, 0, 16, 7)).unwrap();
    b.publish();
    assert_eq!(ports(&sw, &mut pinned, [10, 1, 0, 1]), vec![3], "the pinned worker keeps its snapshot");
    assert!(ports(&sw, &mut pinned, [10, 2, 0, 1]).is_empty());
    sw.unpin(&mut pinned);
    assert_eq!(ports(&sw, &mut pinned, [10, 1, 0, 1]), vec![4]);
    assert_eq!(ports(&sw, &mut pinned, [10, 2, 0, 1]), vec![4]);
    assert_eq!(ports(&sw, &mut pinned, [10, 5, 0, 1]), vec![3]);
}

/// l3.json with a direct counter on `ipv4_lpm`.
fn l3_counted() -> Switch {
    let mut v: serde_json::Value = serde_json::from_str(L3).expect("fixture");
    let tables = v["pipelines"][0]["tables"].as_array_mut().expect("tables");
    let t = tables.iter_mut().find(|t| t["name"] == "MyIngress.ipv4_lpm").expect("ipv4_lpm");
    t["with_counters"] = serde_json::json!(true);
    v["counter_arrays"] =
        serde_json::json!([{"name": "MyIngress.routes", "id": 0, "is_direct": true, "binding": "MyIngress.ipv4_lpm", "size": 16384}]);
    let sw = Switch::new(SwitchConfig::default());
    sw.set_program(load_program(&v.to_string()).expect("loads"));
    sw
}

#[test]
fn hits_survive_modifies_and_staged_entries_take_counter_writes() {
    let sw = l3_counted();
    sw.table_insert("MyIngress.nexthop", nexthop(7, 3)).unwrap();
    sw.table_insert("MyIngress.ipv4_lpm", route(1, 0, 16, 7)).unwrap();
    let mut w = sw.new_worker();
    for _ in 0..3 {
        assert_eq!(ports(&sw, &mut w, [10, 1, 0, 1]), vec![3]);
    }
    let mut b = sw.table_batch();
    b.modify("MyIngress.ipv4_lpm", route(1, 0, 16, 7)).unwrap();
    // a hit between the staged modify and its publish counts on the old version
    assert_eq!(ports(&sw, &mut w, [10, 1, 0, 1]), vec![3]);
    b.modify("MyIngress.ipv4_lpm", route(1, 0, 16, 7)).unwrap();
    b.insert("MyIngress.ipv4_lpm", route(2, 0, 16, 7)).unwrap();
    let key2 = [MatchKey::Lpm(vec![10, 2, 0, 0], 16)];
    sw.table_write_counter("MyIngress.ipv4_lpm", &key2, 0, CounterData { packets: 5, bytes: 500 }).unwrap();
    drop(b);
    // another publish replays the modifies on the spare: the late hit moves too
    sw.table_insert("MyIngress.ipv4_lpm", route(3, 0, 16, 7)).unwrap();
    let counts = |plen_key: [u8; 2]| {
        let k = [MatchKey::Lpm(vec![10, plen_key[0], plen_key[1], 0], 16)];
        sw.table_read_one("MyIngress.ipv4_lpm", &k, 0).unwrap().counter.map(|c| c.packets)
    };
    assert_eq!(counts([1, 0]), Some(4), "3 hits before, 1 while staged");
    assert_eq!(counts([2, 0]), Some(5), "written while staged");
    assert_eq!(counts([3, 0]), Some(0));
}

/// A tiny deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `nexthop` as read: id -> port.
fn nexthops(sw: &Switch) -> BTreeMap<u16, u8> {
    sw.table_read("MyIngress.nexthop")
        .unwrap()
        .into_iter()
        .map(|e| {
            let MatchKey::Exact(k) = &e.entry.key[0] else { panic!("exact key") };
            let EntryAction::Action(a) = &e.entry.action else { panic!("direct action") };
            (u16::from_be_bytes([k[0], k[1]]), a.params[2][1])
        })
        .collect()
}

#[test]
fn any_order_of_batches_publishes_and_held_snapshots_gives_the_model() {
    let sw = l3();
    let mut model: BTreeMap<u16, u8> = BTreeMap::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut held: Option<Worker> = None;
    for round in 0..400 {
        let mut b = sw.table_batch();
        let mut staged = model.clone();
        for _ in 0..rng.below(40) {
            let nh = rng.below(64) as u16;
            let port = rng.below(200) as u8;
            match rng.below(3) {
                0 => {
                    let r = b.insert("MyIngress.nexthop", nexthop(nh, port));
                    assert_eq!(r.is_ok(), !staged.contains_key(&nh), "round {round}: insert {nh}");
                    staged.entry(nh).or_insert(port);
                }
                1 => {
                    let r = b.modify("MyIngress.nexthop", nexthop(nh, port));
                    assert_eq!(r.is_ok(), staged.contains_key(&nh), "round {round}: modify {nh}");
                    if let Some(p) = staged.get_mut(&nh) {
                        *p = port;
                    }
                }
                _ => {
                    let r = b.delete("MyIngress.nexthop", &[MatchKey::Exact(nh.to_be_bytes().to_vec())], 0);
                    assert_eq!(r.is_ok(), staged.remove(&nh).is_some(), "round {round}: delete {nh}");
                }
            }
            if rng.below(10) == 0 {
                b.publish();
                model = staged.clone();
            }
        }
        // a packet thread sometimes holds a snapshot across the next publish
        match rng.below(3) {
            0 => {
                let mut w = sw.new_worker();
                sw.pin(&mut w);
                held = Some(w);
            }
            1 => {
                if let Some(mut w) = held.take() {
                    sw.unpin(&mut w);
                }
            }
            _ => {}
        }
        // what is staged and not yet published is invisible
        assert_eq!(nexthops(&sw), model, "round {round}, before the batch's end");
        drop(b);
        model = staged;
        assert_eq!(nexthops(&sw), model, "round {round}");
        assert_eq!(sw.table_len("MyIngress.nexthop").unwrap(), model.len());
    }
}
