//! The plan applies most tables from a compact record (`plan::tables`), the
//! interpreter through the program's `Table`: both must send the same
//! bytes, count the same hits and misses, and bump the same direct
//! counters, on the key shapes the record flattens (multi-limb fields,
//! static masks, an LPM prefix crossing a limb, a 128-bit ternary, ranges),
//! with a `valid` key (the general path), hit/miss and per-action
//! successors, a default action with data (runtime-set and const), a table
//! applied again through a loop, and a table in egress.
//!
//! And a packet starts from the validity the program gives (metadata valid,
//! headers and stack elements invalid), whatever the packet before it on
//! the same worker parsed.

use serde_json::{json, Value};

use super::behaviour::{action, assign, base, ex, f, hx, one_action, prim, rd};
use crate::api::*;

fn key(kind: &str, h: &str, n: &str, mask: Option<&str>) -> Value {
    json!({"match_type": kind, "target": [h, n], "mask": mask})
}

fn table(name: &str, id: u32, keys: Value, actions: &[(&str, u32)], next: Value, default_next: Value, default: (u32, Vec<&str>, bool)) -> Value {
    let ids: Vec<u32> = actions.iter().map(|a| a.1).collect();
    let names: Vec<&str> = actions.iter().map(|a| a.0).collect();
    json!({"name": name, "id": id, "key": keys, "match_type": "ternary", "type": "simple", "max_size": 64,
      "with_counters": true, "support_timeout": false, "direct_meters": null,
      "action_ids": ids, "actions": names, "base_default_next": default_next, "next_tables": next,
      "default_entry": {"action_id": default.0, "action_const": default.2, "action_data": default.1, "action_entry_const": false}})
}

/// h {a, b, c, d} always; then by h.a & 3: 1 -> w (128-bit x), 2 -> h2, 3 -> both.
/// Ingress: t_wide [h.b & 0xf0 exact, w.x lpm] -> per action t_tern / t_valid,
/// else t_loop; t_tern [h.c ternary, m128 ternary, h.d range] hit -> t_valid,
/// miss -> t_loop; t_valid [h2 valid, h.a exact] (const default with data)
/// -> t_loop; t_loop [m8 exact, h.b & 1 exact], `inc` loops back through
/// c_loop (m8 < 5). Egress: e_range [egress_port exact, h.d range, w.x ternary].
fn prog() -> Value {
    let mut v = base();
    let st = |name: &str, id: u32, ops: Vec<&str>| {
        json!({"name": name, "id": id,
          "parser_ops": ops.iter().map(|h| json!({"op": "extract", "parameters": [{"type": "regular", "value": h}]})).collect::<Vec<_>>(),
          "transition_key": [], "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}]})
    };
    let tr = |val: &str, next: &str| json!({"type": "hexstr", "value": val, "mask": "0x03", "next_state": next});
    v["parsers"][0]["parse_states"] = json!([
        {"name": "start", "id": 0, "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
         "transition_key": [{"type": "field", "value": ["h", "a"]}],
         "transitions": [tr("0x01", "pw"), tr("0x02", "ph2"), tr("0x03", "pboth"),
                         {"type": "default", "value": null, "mask": null, "next_state": null}]},
        st("pw", 1, vec!["w"]),
        st("ph2", 2, vec!["h2"]),
        st("pboth", 3, vec!["w", "h2"]),
    ]);
    v["actions"] = json!([
        action("copy_w", 0, &[("v", 32)], vec![assign(f("scalars", "m128"), f("w", "x")), assign(f("h", "d"), rd(0))]),
        action("set_port", 1, &[("p", 9)], vec![assign(f("standard_metadata", "egress_spec"), rd(0))]),
        action("set_m", 2, &[("v", 16)], vec![assign(f("scalars", "m16"), rd(0)), assign(f("h", "c"), rd(0))]),
        action("mark_b", 3, &[("v", 8)], vec![assign(f("h", "b"), rd(0))]),
        action("inc", 4, &[], vec![
            assign(f("scalars", "m8"), ex("+", f("scalars", "m8"), hx("0x01"))),
            assign(f("h", "c"), ex("+", f("h", "c"), hx("0x0101")))]),
        action("stop", 5, &[], vec![]),
        action("mark_a", 6, &[("v", 8)], vec![assign(f("h", "a"), rd(0))]),
    ]);
    v["pipelines"][0]["tables"] = json!([
        table("t_wide", 0, json!([key("exact", "h", "b", Some("0xf0")), key("lpm", "w", "x", None)]),
            &[("copy_w", 0), ("set_port", 1), ("set_m", 2)],
            json!({"copy_w": "t_tern", "set_port": "t_valid", "set_m": "t_loop"}), json!("t_loop"), (2, vec!["0x0007"], false)),
        table("t_tern", 1, json!([key("ternary", "h", "c", None), key("ternary", "scalars", "m128", None), key("range", "h", "d", None)]),
            &[("set_port", 1), ("mark_b", 3)],
            json!({"__HIT__": "t_valid", "__MISS__": "t_loop"}), json!("t_loop"), (3, vec!["0x77"], false)),
        table("t_valid", 2, json!([{"match_type": "valid", "target": "h2", "mask": null}, key("exact", "h", "a", None)]),
            &[("set_port", 1), ("mark_b", 3)],
            json!({"set_port": "t_loop", "mark_b": "t_loop"}), json!("t_loop"), (3, vec!["0x66"], true)),
        table("t_loop", 3, json!([key("exact", "scalars", "m8", None), key("exact", "h", "b", Some("0x01"))]),
            &[("inc", 4), ("stop", 5)],
            json!({"inc": "c_loop", "stop": null}), Value::Null, (5, vec![], false)),
    ]);
    v["pipelines"][0]["conditionals"] = json!([
        {"name": "c_loop", "id": 0, "true_next": "t_loop", "false_next": null,
         "expression": ex("<", f("scalars", "m8"), hx("0x05"))}
    ]);
    v["pipelines"][0]["init_table"] = json!("t_wide");
    v["pipelines"][1]["tables"] = json!([
        table("e_range", 4, json!([key("exact", "standard_metadata", "egress_port", None), key("range", "h", "d", None), key("ternary", "w", "x", None)]),
            &[("mark_a", 6)], json!({"mark_a": null}), Value::Null, (6, vec!["0x5a"], false)),
    ]);
    v["pipelines"][1]["init_table"] = json!("e_range");
    v["counter_arrays"] = json!(["t_wide", "t_tern", "t_valid", "t_loop", "e_range"].iter().enumerate()
        .map(|(i, t)| json!({"name": format!("{t}_counter"), "id": i, "is_direct": true, "binding": t, "size": 64}))
        .collect::<Vec<_>>());
    v
}

fn ip6(s: &str) -> Vec<u8> {
    s.parse::<std::net::Ipv6Addr>().unwrap().octets().to_vec()
}

fn act(a: &str, params: Vec<Vec<u8>>) -> EntryAction {
    EntryAction::Action(ActionSpec { action: a.into(), params })
}

fn configured(exec: ExecMode) -> Switch {
    let sw = Switch::new(SwitchConfig { exec, ..SwitchConfig::default() });
    sw.set_program(load_program(&prog().to_string()).expect("test program loads"));
    let ins = |t: &str, key: Vec<MatchKey>, a: EntryAction, priority: i32| {
        sw.table_insert(t, TableEntry { key, action: a, priority, idle_timeout_ns: 0 }).unwrap();
    };
    let port = |p: u8| act("set_port", vec![vec![0, p]]);
    let copy = |d: u32| act("copy_w", vec![d.to_be_bytes().to_vec()]);
    let ex = |b: u8| MatchKey::Exact(vec![b]);
    // t_wide: the /65 ends one bit into the low limb
    ins("t_wide", vec![ex(0x20), MatchKey::Lpm(ip6("2001:db8::"), 32)], copy(0x1000), 0);
    ins("t_wide", vec![ex(0x20), MatchKey::Lpm(ip6("2001:db8:1::"), 48)], port(3), 0);
    ins("t_wide", vec![ex(0x20), MatchKey::Lpm(ip6("2001:db8:1:0:8000::"), 65)], copy(0x3000), 0);
    ins("t_wide", vec![ex(0x30), MatchKey::Lpm(ip6("2001:db8::5"), 128)], copy(0x2000), 0);
    ins("t_wide", vec![ex(0x30), MatchKey::Lpm(ip6("::"), 0)], port(4), 0);
    sw.table_set_default("t_wide", act("set_m", vec![vec![0x12, 0x34]])).unwrap();
    // t_tern: m128 is w.x after copy_w, else 0
    let tern = |c: u16, cm: u16, m: &str, mm: &str, lo: u32, hi: u32| {
        vec![
            MatchKey::Ternary(c.to_be_bytes().to_vec(), cm.to_be_bytes().to_vec()),
            MatchKey::Ternary(ip6(m), ip6(mm)),
            MatchKey::Range(lo.to_be_bytes().to_vec(), hi.to_be_bytes().to_vec()),
        ]
    };
    ins("t_tern", tern(0x1000, 0xf000, "2001:db8::", "ffff:ffff::", 0, u32::MAX), port(5), 10);
    ins("t_tern", tern(0, 0, "::5", "::ffff", 0x1000, 0x2fff), act("mark_b", vec![vec![0x99]]), 20);
    ins("t_tern", tern(0x1234, 0xffff, "::", "::", 0, 0xffff), act("mark_b", vec![vec![0x55]]), 15);
    // t_valid: the validity bit as a key
    ins("t_valid", vec![ex(1), ex(0x02)], port(6), 0);
    ins("t_valid", vec![ex(0), ex(0x00)], act("mark_b", vec![vec![0x44]]), 0);
    // t_loop: even h.b loops three times, odd once
    for (m8, b) in [(0, 0), (1, 0), (2, 0), (0, 1)] {
        ins("t_loop", vec![ex(m8), ex(b)], act("inc", vec![]), 0);
    }
    let er = |p: u8, lo: u32, hi: u32, x: &str, xm: &str| {
        vec![
            MatchKey::Exact(vec![0, p]),
            MatchKey::Range(lo.to_be_bytes().to_vec(), hi.to_be_bytes().to_vec()),
            MatchKey::Ternary(ip6(x), ip6(xm)),
        ]
    };
    let mark = |a: u8| act("mark_a", vec![vec![a]]);
    ins("e_range", er(0, 0, 0x0fff, "::", "::"), mark(0x10), 1);
    ins("e_range", er(3, 0, u32::MAX, "2001:db8:1::", "ffff:ffff:ffff::"), mark(0x30), 2);
    ins("e_range", er(5, 0x1000, 0x1000, "::", "::"), mark(0x50), 3);
    ins("e_range", er(4, 0, u32::MAX, "::", "::"), mark(0x40), 1);
    sw
}

/// Deterministic frames over few values per field, so that every entry,
/// every miss and every parse path comes up.
fn frames() -> Vec<Vec<u8>> {
    let xs = ["2001:db8::5", "2001:db8:1:0:8000::1", "2001:db8:1::9", "2001:db8:1:0:7fff::", "2001:db8:2::5", "2001:db8:3::", "3000::5", "::"];
    let mut out = Vec::new();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 0..3000u32 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let r = s.to_be_bytes();
        let a = [0x00, 0x01, 0x02, 0x03, 0x41, 0x42][r[0] as usize % 6];
        let b = [0x20, 0x21, 0x2f, 0x30, 0x31, 0x00][r[1] as usize % 6];
        let c: u16 = [0x1234, 0x1000, 0x0000, 0x2f00][r[2] as usize % 4];
        let d: u32 = [0x0000_1000, 0x0000_0fff, 0x0001_0000, 0x0000_2fff][r[3] as usize % 4];
        let mut fr = vec![a, b];
        fr.extend_from_slice(&c.to_be_bytes());
        fr.extend_from_slice(&d.to_be_bytes());
        // w and h2 in parse order; truncated frames now and then
        if a & 1 == 1 {
            fr.extend(ip6(xs[r[4] as usize % xs.len()]));
        }
        if a & 2 == 2 {
            fr.extend_from_slice(&[r[5], r[6], 0, 0, 0, 0, 0, 0]);
        }
        fr.extend_from_slice(&[0xab, 0xcd]);
        if i % 17 == 0 {
            fr.truncate(r[7] as usize % fr.len());
        }
        out.push(fr);
    }
    out
}

#[test]
fn table_record_and_interpreter_agree_on_every_key_shape() {
    let sws = [configured(ExecMode::Plan), configured(ExecMode::Interpreter)];
    let mut ws: Vec<Worker> = sws.iter().map(|s| s.new_worker()).collect();
    let mut ports = std::collections::BTreeSet::new();
    for (i, fr) in frames().iter().enumerate() {
        let outs: Vec<Vec<(u32, Vec<u8>)>> = sws
            .iter()
            .zip(ws.iter_mut())
            .map(|(sw, w)| {
                let mut o = Vec::new();
                sw.process(w, 0, fr, &mut |p, b| o.push((p, b.to_vec())));
                o
            })
            .collect();
        assert_eq!(outs[0], outs[1], "frame {i} {fr:02x?}: plan vs interpreter");
        ports.extend(outs[0].iter().map(|o| (o.0, o.1.first().copied())));
    }
    drop(ws);
    let stats: Vec<_> = sws.iter().map(|s| s.pipeline_stats().unwrap().tables).collect();
    assert_eq!(stats[0], stats[1], "hits and misses per table");
    for t in &stats[0] {
        assert!(t.hits > 0 && t.misses > 0, "{} not exercised both ways: {t:?}", t.name);
    }
    for t in ["t_wide", "t_tern", "t_valid", "t_loop", "e_range"] {
        let counts: Vec<Vec<_>> = sws
            .iter()
            .map(|s| s.table_read(t).unwrap().into_iter().map(|e| (format!("{:?}", e.entry.key), e.counter)).collect())
            .collect();
        assert_eq!(counts[0], counts[1], "{t}: direct counters");
        assert!(counts[0].iter().all(|(_, c)| c.is_some_and(|c| c.packets > 0)), "{t}: an entry never hit: {:?}", counts[0]);
    }
    // every egress mark and every ingress port choice came up
    for want in [(0, Some(0x10)), (3, Some(0x30)), (4, Some(0x40)), (5, Some(0x50)), (6, Some(0x5a))] {
        assert!(ports.contains(&want), "no {want:?} in {ports:?}");
    }
}

/// One worker, one packet after another: a packet never sees the headers,
/// stack elements or metadata values the packet before it left.
#[test]
fn each_packet_starts_from_the_programs_validity() {
    let mut v = one_action(vec![]);
    v["header_stacks"] = json!([{"name": "st", "id": 0, "header_type": "h_t", "header_ids": [5, 6]}]);
    v["headers"].as_array_mut().unwrap().extend([
        json!({"name": "st[0]", "id": 5, "header_type": "h_t", "metadata": false}),
        json!({"name": "st[1]", "id": 6, "header_type": "h_t", "metadata": false}),
    ]);
    v["deparsers"][0]["order"] = json!(["h", "st[0]", "st[1]", "h2", "w"]);
    // start: extract h; h.a == 1 -> push; push: extract st.next, again while st.last.b != 0
    v["parsers"][0]["parse_states"] = json!([
        {"name": "start", "id": 0, "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
         "transition_key": [{"type": "field", "value": ["h", "a"]}],
         "transitions": [{"type": "hexstr", "value": "0x01", "mask": null, "next_state": "push"},
                         {"type": "default", "value": null, "mask": null, "next_state": null}]},
        {"name": "push", "id": 1, "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "st"}]}],
         "transition_key": [{"type": "stack_field", "value": ["st", "b"]}],
         "transitions": [{"type": "hexstr", "value": "0x00", "mask": null, "next_state": null},
                         {"type": "default", "value": null, "mask": null, "next_state": "push"}]}
    ]);
    // the action: m8 += 1 into h.b (metadata starts at 0), the stack size
    // into h.c, h2 made valid when h.d's low byte is 1 (it stays behind otherwise)
    let acts = v["actions"][0]["primitives"].as_array_mut().unwrap();
    acts.push(assign(f("scalars", "m8"), ex("+", f("scalars", "m8"), hx("0x01"))));
    acts.push(assign(f("h", "b"), f("scalars", "m8")));
    acts.push(assign(f("h", "c"), json!({"type": "expression", "value": {"op": "size_stack", "left": null, "right": {"type": "header_stack", "value": "st"}}})));
    v["actions"].as_array_mut().unwrap().push(action("add_h2", 1, &[], vec![prim("add_header", vec![json!({"type": "header", "value": "h2"})])]));
    // the action runs only while the metadata header is valid
    v["pipelines"][0]["tables"][0]["base_default_next"] = json!("c_h2");
    v["pipelines"][0]["tables"][0]["next_tables"] = json!({"act": "c_h2"});
    v["pipelines"][0]["tables"].as_array_mut().unwrap().push(super::behaviour::call_table("t_h2", 1, "add_h2", 1, Value::Null));
    v["pipelines"][0]["conditionals"] = json!([
        {"name": "c_meta", "id": 0, "true_next": "t_act", "false_next": null,
         "expression": {"type": "expression", "value": {"op": "d2b", "left": null, "right": f("scalars", "$valid$")}}},
        {"name": "c_h2", "id": 1, "true_next": "t_h2", "false_next": null,
         "expression": ex("==", f("h", "d"), hx("0x01"))}
    ]);
    v["pipelines"][0]["init_table"] = json!("c_meta");
    for exec in [ExecMode::Plan, ExecMode::Interpreter] {
        let sw = Switch::new(SwitchConfig { exec, ..SwitchConfig::default() });
        sw.set_program(load_program(&v.to_string()).expect("test program loads"));
        let mut w = sw.new_worker();
        let mut send = |fr: &[u8]| {
            let mut o = Vec::new();
            sw.process(&mut w, 0, fr, &mut |p, b| o.push((p, b.to_vec())));
            o
        };
        let el = |b: u8| [0x0e, b, 0, 0, 0, 0, 0, 0];
        // two stack elements and h2 added
        let fr: Vec<u8> = [&[0x01, 0, 0, 0, 0, 0, 0, 1][..], &el(5), &el(0), &[0xab]].concat();
        let mut want = vec![0x01, 1, 0, 2, 0, 0, 0, 1];
        want.extend_from_slice(&el(5));
        want.extend_from_slice(&el(0));
        want.extend_from_slice(&[0; 8]);
        want.push(0xab);
        assert_eq!(send(&fr), vec![(1, want)], "{exec:?}: first packet");
        // then nothing but h: no stack element, no h2, m8 from 0 again
        let fr = [0x02, 0, 0, 0, 0, 0, 0, 0, 0xab];
        assert_eq!(send(&fr), vec![(1, vec![0x02, 1, 0, 0, 0, 0, 0, 0, 0xab])], "{exec:?}: after a packet with a stack");
        // one element: the stack fills from index 0 again
        let fr: Vec<u8> = [&[0x01, 0, 0, 0, 0, 0, 0, 0][..], &el(0), &[0xab]].concat();
        let want: Vec<u8> = [&[0x01, 1, 0, 1, 0, 0, 0, 0][..], &el(0), &[0xab]].concat();
        assert_eq!(send(&fr), vec![(1, want)], "{exec:?}: one element");
    }
}
