//! Property tests of the no-panic contract (proptest; cargo-fuzz targets in
//! ../fuzz cover the same ground with coverage guidance where it builds):
//! random frames through loaded programs, random mutations of valid JSON
//! programs through the loader and, when they still load, random frames
//! through them.

use proptest::prelude::*;
use serde_json::Value;

use crate::api::*;

const L3: &str = include_str!("../fixtures/l3.json");
const L3_ACL: &str = include_str!("../fixtures/l3_acl.json");

fn l3_switch(json: &str) -> Switch {
    let sw = Switch::new(SwitchConfig::default());
    sw.set_program(load_program(json).unwrap());
    let _ = sw.table_insert(
        "MyIngress.ipv4_lpm",
        TableEntry {
            key: vec![MatchKey::Lpm(vec![10, 0, 0, 0], 8)],
            action: EntryAction::Action(ActionSpec { action: "MyIngress.set_nhop".into(), params: vec![vec![0, 1]] }),
            priority: 0,
            idle_timeout_ns: 0,
        },
    );
    sw
}

/// Replaces the node reached by walking `path` (indices taken modulo the
/// children count) with `new`.
fn mutate(v: &mut Value, path: &[usize], new: Value) {
    let Some((&p, rest)) = path.split_first() else {
        *v = new;
        return;
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            let k = m.keys().nth(p % m.len()).cloned().unwrap_or_default();
            if let Some(c) = m.get_mut(&k) {
                mutate(c, rest, new);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let n = a.len();
            mutate(&mut a[p % n], rest, new);
        }
        _ => *v = new,
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u32>().prop_map(Value::from),
        "[a-z_$.]{0,12}".prop_map(Value::String),
        "0x[0-9a-f]{0,40}".prop_map(Value::String),
        Just(Value::Array(vec![])),
        Just(serde_json::json!({})),
        Just(serde_json::json!({"type": "field", "value": ["ipv4", "ttl"]})),
        Just(serde_json::json!({"type": "hexstr", "value": "-0x7fffffffffffffffffffffffffffffff"})),
        Just(serde_json::json!({"op": "<<", "left": {"type": "hexstr", "value": "0x1"}, "right": {"type": "field", "value": ["ipv4", "ttl"]}})),
    ]
}

proptest! {
    // PROPTEST_CASES=N runs longer searches (the default keeps `cargo test` quick).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256),
        .. ProptestConfig::default()
    })]

    #[test]
    fn random_frames_never_panic(frame in proptest::collection::vec(any::<u8>(), 0..200), port in 0u32..600) {
        for json in [L3, L3_ACL] {
            let sw = l3_switch(json);
            let mut w = sw.new_worker();
            let mut n = 0;
            sw.process(&mut w, port, &frame, &mut |_, b| { n += 1; assert!(b.len() <= frame.len() + 64); });
            prop_assert!(n <= 1);
        }
    }

    #[test]
    fn ipv4_like_frames_never_panic(mut tail in proptest::collection::vec(any::<u8>(), 0..60), ihl in 0u8..16) {
        let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 8, 0, 0x40 | ihl];
        f.append(&mut tail);
        let sw = l3_switch(L3);
        let mut w = sw.new_worker();
        sw.process(&mut w, 1, &f, &mut |_, _| {});
    }

    #[test]
    fn mutated_programs_load_or_fail_cleanly(
        muts in proptest::collection::vec((proptest::collection::vec(any::<usize>(), 0..8), any_value()), 1..4),
        frame in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        let mut v: Value = serde_json::from_str(L3_ACL).unwrap();
        for (path, new) in muts {
            mutate(&mut v, &path, new);
        }
        let text = v.to_string();
        match load_program(&text) {
            Err(e) => prop_assert!(!e.to_string().is_empty()),
            Ok(p) => {
                let sw = Switch::new(SwitchConfig::default());
                sw.set_program(p);
                let mut w = sw.new_worker();
                sw.process(&mut w, 1, &frame, &mut |_, _| {});
                let _ = sw.table_read("MyIngress.acl");
            }
        }
    }

    #[test]
    fn arbitrary_text_is_refused_cleanly(s in ".{0,300}") {
        let _ = load_program(&s);
    }
}
