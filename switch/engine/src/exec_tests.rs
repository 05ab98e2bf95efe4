//! Behaviour tests of the pipeline: one small hand-written BMv2 JSON program
//! per feature, a packet in, the exact bytes out.

use serde_json::{json, Value};

use crate::api::*;

pub(super) fn f(h: &str, n: &str) -> Value {
    json!({"type": "field", "value": [h, n]})
}
pub(super) fn hx(v: &str) -> Value {
    json!({"type": "hexstr", "value": v})
}
pub(super) fn rd(i: u32) -> Value {
    json!({"type": "runtime_data", "value": i})
}
pub(super) fn ex(op: &str, l: Value, r: Value) -> Value {
    json!({"type": "expression", "value": {"op": op, "left": l, "right": r}})
}
/// A primitive call; an expression parameter gets the second
/// `{"type": "expression"}` level BMv2 wants around it.
pub(super) fn prim(op: &str, params: Vec<Value>) -> Value {
    let single = |p: &Value| p["type"] == "expression" && p["value"].get("op").is_some();
    let wrap = |p: Value| if single(&p) { json!({"type": "expression", "value": p}) } else { p };
    json!({"op": op, "parameters": params.into_iter().map(wrap).collect::<Vec<_>>()})
}
pub(super) fn assign(dst: Value, src: Value) -> Value {
    prim("assign", vec![dst, src])
}
pub(super) fn action(name: &str, id: u32, params: &[(&str, u32)], prims: Vec<Value>) -> Value {
    let rd: Vec<Value> = params.iter().map(|(n, w)| json!({"name": n, "bitwidth": w})).collect();
    json!({"name": name, "id": id, "runtime_data": rd, "primitives": prims})
}

const STD: &str = r#"[["ingress_port",9,false],["egress_spec",9,false],["egress_port",9,false],
 ["instance_type",32,false],["packet_length",32,false],["enq_timestamp",32,false],["enq_qdepth",19,false],
 ["deq_timedelta",32,false],["deq_qdepth",19,false],["ingress_global_timestamp",48,false],
 ["egress_global_timestamp",48,false],["mcast_grp",16,false],["egress_rid",16,false],["checksum_error",1,false],
 ["parser_error",32,false],["priority",3,false],["_padding",3,false]]"#;

/// Base program: header `h` {a:8, b:8, c:16, d:32} parsed from the frame,
/// `h2` (same type) not parsed, metadata `scalars` {m8, m16, m32, m128},
/// wide header `w` {x:128} not parsed. Deparser: h, h2, w.
pub(super) fn base() -> Value {
    let std: Value = serde_json::from_str(STD).unwrap();
    json!({
      "__meta__": {"version": [2, 23]},
      "header_types": [
        {"name": "scalars_0", "id": 0, "fields": [["m8", 8, false], ["m16", 16, false], ["m32", 32, false], ["m128", 128, false], ["s8", 8, true]]},
        {"name": "standard_metadata", "id": 1, "fields": std},
        {"name": "h_t", "id": 2, "fields": [["a", 8, false], ["b", 8, false], ["c", 16, false], ["d", 32, false]]},
        {"name": "w_t", "id": 3, "fields": [["x", 128, false]]}
      ],
      "headers": [
        {"name": "scalars", "id": 0, "header_type": "scalars_0", "metadata": true},
        {"name": "standard_metadata", "id": 1, "header_type": "standard_metadata", "metadata": true},
        {"name": "h", "id": 2, "header_type": "h_t", "metadata": false},
        {"name": "h2", "id": 3, "header_type": "h_t", "metadata": false},
        {"name": "w", "id": 4, "header_type": "w_t", "metadata": false}
      ],
      "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2], ["StackOutOfBounds", 3], ["HeaderTooShort", 4]],
      "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": [
        {"name": "start", "id": 0, "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
         "transition_key": [], "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}]}
      ]}],
      "deparsers": [{"name": "deparser", "id": 0, "order": ["h", "h2", "w"]}],
      "actions": [],
      "pipelines": [
        {"name": "ingress", "id": 0, "init_table": null, "tables": [], "action_profiles": [], "conditionals": []},
        {"name": "egress", "id": 1, "init_table": null, "tables": [], "action_profiles": [], "conditionals": []}
      ]
    })
}

/// A keyless table that always runs `action_id` (how p4c lowers direct action calls).
pub(super) fn call_table(name: &str, id: u32, action_name: &str, action_id: u32, next: Value) -> Value {
    json!({"name": name, "id": id, "key": [], "match_type": "exact", "type": "simple", "max_size": 1,
      "with_counters": false, "support_timeout": false, "direct_meters": null,
      "action_ids": [action_id], "actions": [action_name], "base_default_next": next,
      "next_tables": {action_name: next},
      "default_entry": {"action_id": action_id, "action_const": true, "action_data": [], "action_entry_const": true}})
}

/// Program whose ingress runs one action (id 0) with `prims`, egress port 1.
pub(super) fn one_action(prims: Vec<Value>) -> Value {
    let mut v = base();
    let mut all = vec![assign(f("standard_metadata", "egress_spec"), hx("0x0001"))];
    all.extend(prims);
    v["actions"] = json!([action("act", 0, &[], all)]);
    v["pipelines"][0]["tables"] = json!([call_table("t_act", 0, "act", 0, Value::Null)]);
    v["pipelines"][0]["init_table"] = json!("t_act");
    v
}

pub(super) fn switch(v: &Value) -> Switch {
    let sw = Switch::new(SwitchConfig::default());
    match load_program(&v.to_string()) {
        Ok(p) => sw.set_program(p),
        Err(e) => panic!("test program does not load: {e}"),
    }
    sw
}

pub(super) fn send(sw: &Switch, port: u32, frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut w = sw.new_worker();
    let mut out = Vec::new();
    sw.process(&mut w, port, frame, &mut |p, b| out.push((p, b.to_vec())));
    out
}

pub(super) const PKT: [u8; 10] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff];

pub(super) fn spec(a: &str, params: Vec<Vec<u8>>) -> EntryAction {
    EntryAction::Action(ActionSpec { action: a.into(), params })
}

// ----- loader errors -----------------------------------------------------------

#[test]
fn load_errors_name_the_json_path() {
    let mut v = base();
    v["pipelines"][0]["tables"] = json!([{"name": "t", "id": 0, "key": [
        {"match_type": "exact", "target": ["h", "a"], "mask": null},
        {"match_type": "foo", "target": ["h", "b"], "mask": null}], "actions": [], "next_tables": {}}]);
    let e = load_program(&v.to_string()).unwrap_err();
    assert_eq!(e.to_string(), "pipelines[0].tables[0].key[1].match_type: unknown match_type \"foo\"");

    let v = one_action(vec![prim("frobnicate", vec![])]);
    let e = load_program(&v.to_string()).unwrap_err();
    assert_eq!(e.to_string(), "actions[0].primitives[1].op: unknown primitive \"frobnicate\"");

    let mut v = base();
    v["bogus"] = json!(1);
    assert_eq!(load_program(&v.to_string()).unwrap_err().to_string(), "bogus: unknown top-level attribute \"bogus\"");

    let mut v = base();
    v["__meta__"]["version"] = json!([3, 0]);
    assert!(load_program(&v.to_string()).unwrap_err().to_string().starts_with("__meta__.version:"));

    let v = one_action(vec![assign(f("h", "zz"), hx("0x1"))]);
    assert_eq!(
        load_program(&v.to_string()).unwrap_err().to_string(),
        "actions[0].primitives[1].parameters[0].value[1]: header \"h\" has no field \"zz\""
    );
    let v = one_action(vec![assign(f("h", "a"), ex("**", hx("0x1"), hx("0x2")))]);
    assert!(load_program(&v.to_string()).unwrap_err().to_string().contains("unknown expression operation \"**\""));

    assert!(load_program("{").unwrap_err().to_string().starts_with("invalid JSON"));
    assert!(load_program("[]").is_err());
    let mut v = base();
    v["extern_instances"] = json!([{"name": "x", "id": 0, "type": "Weird", "attribute_values": []}]);
    assert_eq!(
        load_program(&v.to_string()).unwrap_err().to_string(),
        "extern_instances[0].type: extern type \"Weird\" is not supported by this target"
    );
}

#[test]
fn failed_load_keeps_the_previous_program() {
    let sw = switch(&one_action(vec![assign(f("h", "a"), hx("0x01"))]));
    assert!(load_program("{\"bad\": 1}").is_err());
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 0x01);
}

// ----- expressions -------------------------------------------------------------

#[test]
fn arithmetic_wraps_to_the_destination_width() {
    let v = one_action(vec![
        // a = a + 0xf0 (0x11 + 0xf0 = 0x101 -> 0x01)
        assign(f("h", "a"), ex("+", f("h", "a"), hx("0xf0"))),
        // b = 0 - 1 -> 0xff
        assign(f("h", "b"), ex("-", hx("0x00"), hx("0x01"))),
        // c = (c << 4) >> 8 in unbounded precision: 0x3344 << 4 = 0x33440, >> 8 = 0x334
        assign(f("h", "c"), ex(">>", ex("<<", f("h", "c"), hx("0x4")), hx("0x8"))),
        // d = d * 3 truncated
        assign(f("h", "d"), ex("*", f("h", "d"), hx("0x3"))),
    ]);
    let out = send(&switch(&v), 0, &PKT);
    let d = 0x5566_7788u32.wrapping_mul(3).to_be_bytes();
    assert_eq!(out, vec![(1, vec![0x01, 0xff, 0x03, 0x34, d[0], d[1], d[2], d[3], 0xee, 0xff])]);
}

#[test]
fn comparisons_logic_ternary_and_casts() {
    let v = one_action(vec![
        assign(f("h", "a"), json!({"type": "expression", "value": {"op": "?", "left": hx("0x0a"), "right": hx("0x0b"),
            "cond": ex("and", ex(">", f("h", "c"), hx("0x3000")), ex("not", Value::Null, ex("==", f("h", "b"), hx("0x00"))))}})),
        // b = two_comp_mod(-1, 8) & 0xff -> 0xff ; then sat_cast(300, 8 unsigned) -> 255 in c
        assign(f("h", "b"), ex("two_comp_mod", hx("-0x81"), hx("0x8"))),
        assign(f("h", "c"), ex("usat_cast", hx("0x12c"), hx("0x8"))),
        assign(f("scalars", "s8"), hx("-0x05")),
        // d = (s8 < 0) ? 1 : 2 (signed field compare)
        assign(f("h", "d"), json!({"type": "expression", "value": {"op": "?", "left": hx("0x1"), "right": hx("0x2"),
            "cond": ex("<", f("scalars", "s8"), hx("0x0"))}})),
    ]);
    let out = send(&switch(&v), 0, &PKT);
    assert_eq!(out[0].1[..8], [0x0a, 0x7f, 0x00, 0xff, 0, 0, 0, 1]);
}

#[test]
fn wide_arithmetic_is_exact() {
    // w.x = (m128 - 1) where m128 = 0 -> all ones (128 bits); then add 2 -> 1 with carry out dropped
    let v = one_action(vec![
        prim("add_header", vec![json!({"type": "header", "value": "w"})]),
        assign(f("w", "x"), ex("-", f("scalars", "m128"), hx("0x1"))),
        assign(f("scalars", "m128"), ex("+", f("w", "x"), hx("0x3"))),
        // h.d = (m128 >> 0) == 2
        assign(f("h", "d"), ex("b2d", Value::Null, ex("==", f("scalars", "m128"), hx("0x2")))),
        // a 2048-bit intermediate: (1 << 2000) >> 1996 == 16
        assign(f("h", "a"), ex(">>", ex("<<", hx("0x1"), hx("0x7d0")), hx("0x7cc"))),
    ]);
    let out = send(&switch(&v), 0, &PKT);
    let b = &out[0].1;
    assert_eq!(b[0], 16);
    assert_eq!(&b[4..8], &[0, 0, 0, 1]);
    assert_eq!(&b[8..24], &[0xff; 16]);
    assert_eq!(&b[24..], &[0xee, 0xff]);
}

#[test]
fn jumps_and_exit() {
    // index 0 is one_action's egress_spec write; [1] jumps to [3] since a != 0x99
    let v = one_action(vec![
        prim("_jump_if_zero", vec![ex("b2d", Value::Null, ex("==", f("h", "a"), hx("0x99"))), hx("0x3")]),
        assign(f("h", "a"), hx("0xaa")), // skipped
        assign(f("h", "b"), hx("0xbb")), // index 3: executed
        prim("_jump", vec![hx("0x7")]),
        assign(f("h", "c"), hx("0xcccc")), // skipped
        prim("exit", vec![]),
        assign(f("h", "d"), hx("0x1")), // index 7 (index 0 is the egress_spec write)
        prim("exit", vec![]),
        assign(f("h", "d"), hx("0x2")), // never
    ]);
    let out = send(&switch(&v), 0, &PKT);
    assert_eq!(out[0].1[..8], [0x11, 0xbb, 0x33, 0x44, 0, 0, 0, 1]);
}

// ----- tables ------------------------------------------------------------------

pub(crate) fn table_prog(match_kinds: &[&str], with_prio_actions: bool) -> Value {
    let mut v = base();
    v["actions"] = json!([
        action("set_a", 0, &[("v", 8)], vec![assign(f("h", "a"), rd(0)), assign(f("standard_metadata", "egress_spec"), hx("0x2"))]),
        action("miss", 1, &[], vec![assign(f("h", "b"), hx("0xee"))]),
        action("hit_mark", 2, &[], vec![assign(f("h", "c"), hx("0x0001"))]),
        action("miss_mark", 3, &[], vec![assign(f("h", "c"), hx("0x0002"))])
    ]);
    let fields = ["b", "c", "d"];
    let keys: Vec<Value> = match_kinds
        .iter()
        .enumerate()
        .map(|(i, k)| json!({"match_type": k, "target": ["h", fields[i]], "mask": null}))
        .collect();
    let _ = with_prio_actions;
    v["pipelines"][0]["tables"] = json!([
        {"name": "t", "id": 0, "key": keys, "match_type": match_kinds[0], "type": "simple", "max_size": 64,
         "with_counters": true, "support_timeout": true, "direct_meters": null, "action_ids": [0, 1],
         "actions": ["set_a", "miss"], "base_default_next": null,
         "next_tables": {"__HIT__": "t_hit", "__MISS__": "t_miss"},
         "default_entry": {"action_id": 1, "action_const": false, "action_data": [], "action_entry_const": false}},
        call_table("t_hit", 1, "hit_mark", 2, Value::Null),
        call_table("t_miss", 2, "miss_mark", 3, Value::Null)
    ]);
    v["counter_arrays"] = json!([{"name": "t_counter", "id": 0, "is_direct": true, "binding": "t", "size": 64}]);
    v["pipelines"][0]["init_table"] = json!("t");
    v
}

pub(super) fn entry(key: Vec<MatchKey>, a: u8, prio: i32) -> TableEntry {
    TableEntry { key, action: spec("set_a", vec![vec![a]]), priority: prio, idle_timeout_ns: 0 }
}

#[test]
fn exact_table_hit_miss_and_next_tables() {
    let sw = switch(&table_prog(&["exact"], false));
    sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 0x5a, 0)).unwrap();
    let out = send(&sw, 0, &PKT);
    assert_eq!(out, vec![(2, vec![0x5a, 0x22, 0x00, 0x01, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff])], "hit -> __HIT__ branch");
    let mut p = PKT;
    p[1] = 0x23;
    let out = send(&sw, 0, &p);
    assert_eq!(out, vec![(0, vec![0x11, 0xee, 0x00, 0x02, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff])], "miss -> default, __MISS__");
    // duplicate / missing entries
    assert!(matches!(sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 1, 0)), Err(ApiError::AlreadyExists(_))));
    assert!(matches!(sw.table_delete("t", &[MatchKey::Exact(vec![0x24])], 0), Err(ApiError::NotFound(_))));
    assert!(matches!(sw.table_insert("t", entry(vec![MatchKey::Exact(vec![1, 0x22])], 1, 0)), Err(ApiError::InvalidArgument(_))));
    assert!(matches!(sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x23])], 1, 5)), Err(ApiError::InvalidArgument(_))));
    let mut v = table_prog(&["exact"], false);
    v["pipelines"][0]["tables"][0]["support_timeout"] = json!(false);
    let mut e = entry(vec![MatchKey::Exact(vec![0x23])], 1, 0);
    e.idle_timeout_ns = 1000;
    assert!(matches!(switch(&v).table_insert("t", e), Err(ApiError::InvalidArgument(_))), "no idle timeout support");
    // direct counter counted the hit
    let rd = sw.table_read("t").unwrap();
    assert_eq!(rd.len(), 1);
    assert_eq!(rd[0].counter, Some(CounterData { packets: 1, bytes: 10 }));
    // modify keeps the counter, changes the action data
    sw.table_modify("t", entry(vec![MatchKey::Exact(vec![0x00, 0x22])], 0x6b, 0)).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 0x6b);
    assert_eq!(sw.table_read("t").unwrap()[0].counter.map(|c| c.packets), Some(2));
    // default action change, then delete
    sw.table_set_default("t", spec("set_a", vec![vec![0x77]])).unwrap();
    assert_eq!(send(&sw, 0, &p)[0].1[0], 0x77);
    sw.table_reset_default("t").unwrap();
    sw.table_delete("t", &[MatchKey::Exact(vec![0x22])], 0).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[1], 0xee);
    // metrics: lookups of t counted (the keyless wrappers t_hit/t_miss are not listed)
    let stats = sw.pipeline_stats().unwrap();
    let names: Vec<&str> = stats.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["t"]);
    assert_eq!((stats.tables[0].hits, stats.tables[0].misses), (2, 3));
}

#[test]
fn ternary_priorities_and_range_and_optional() {
    let sw = switch(&table_prog(&["ternary", "range", "optional"], true));
    // key: h.b ternary, h.c range, h.d optional
    let k = |bv: u8, bm: u8, lo: u16, hi: u16, d: Option<u32>| {
        vec![
            MatchKey::Ternary(vec![bv], vec![bm]),
            MatchKey::Range(lo.to_be_bytes().to_vec(), hi.to_be_bytes().to_vec()),
            MatchKey::Optional(d.map(|d| d.to_be_bytes().to_vec())),
        ]
    };
    sw.table_insert("t", entry(k(0x20, 0xf0, 0, 0xffff, None), 1, 10)).unwrap();
    sw.table_insert("t", entry(k(0x22, 0xff, 0x3000, 0x3400, None), 2, 20)).unwrap();
    sw.table_insert("t", entry(k(0x00, 0x00, 0x3344, 0x3344, Some(0x55667788)), 3, 5)).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 2, "highest priority among matching entries");
    let mut p = PKT;
    p[2] = 0x40; // c = 0x4044: entry 2's range fails
    assert_eq!(send(&sw, 0, &p)[0].1[0], 1);
    p[1] = 0x31; // b = 0x31: entry 1 fails too
    assert_eq!(send(&sw, 0, &p)[0].1[1], 0xee, "miss");
    sw.table_insert("t", entry(k(0x00, 0x00, 0x3344, 0x3344, Some(0x55667788)), 4, 50)).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 4, "same key, other priority is another entry");
    assert!(matches!(sw.table_insert("t", entry(k(0x21, 0xf0, 0, 1, None), 1, 1)), Err(ApiError::InvalidArgument(_))), "value outside mask");
    assert!(matches!(sw.table_insert("t", entry(k(0x20, 0xf0, 0, 1, None), 1, 0)), Err(ApiError::InvalidArgument(_))), "priority required");
    assert!(matches!(sw.table_insert("t", entry(k(0x20, 0xf0, 5, 1, None), 1, 1)), Err(ApiError::InvalidArgument(_))), "lo > hi");
}

#[test]
fn lpm_longest_prefix_wins() {
    let mut v = table_prog(&["lpm"], false);
    v["pipelines"][0]["tables"][0]["key"][0]["target"] = json!(["h", "d"]);
    let sw = switch(&v);
    sw.table_insert("t", entry(vec![MatchKey::Lpm(vec![0x55, 0, 0, 0], 8)], 8, 0)).unwrap();
    sw.table_insert("t", entry(vec![MatchKey::Lpm(vec![0x55, 0x66, 0x70, 0], 20)], 20, 0)).unwrap();
    sw.table_insert("t", entry(vec![MatchKey::Lpm(vec![0, 0, 0, 0], 0)], 0, 0)).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 20);
    let mut p = PKT;
    p[6] = 0x80;
    assert_eq!(send(&sw, 0, &p)[0].1[0], 8);
    p[4] = 0x56;
    assert_eq!(send(&sw, 0, &p)[0].1[0], 0, "default route");
    assert!(matches!(sw.table_insert("t", entry(vec![MatchKey::Lpm(vec![0x55, 0x66, 0x70, 1], 20)], 1, 0)), Err(ApiError::InvalidArgument(_))));
}

#[test]
fn const_entries_and_const_default() {
    let mut v = table_prog(&["exact"], false);
    v["pipelines"][0]["tables"][0]["entries"] = json!([
        {"match_key": [{"match_type": "exact", "key": "0x22"}], "action_entry": {"action_id": 0, "action_data": ["0x42"]}, "priority": 1}
    ]);
    v["pipelines"][0]["tables"][0]["default_entry"]["action_const"] = json!(true);
    let sw = switch(&v);
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 0x42);
    let rd = sw.table_read("t").unwrap();
    assert!(rd[0].is_const);
    assert!(matches!(sw.table_insert("t", entry(vec![MatchKey::Exact(vec![1])], 1, 0)), Err(ApiError::PermissionDenied(_))));
    assert!(matches!(sw.table_set_default("t", spec("set_a", vec![vec![1]])), Err(ApiError::PermissionDenied(_))));
    assert!(sw.program().unwrap().info().table("t").unwrap().has_const_entries);
}

#[test]
fn idle_timeout_reports_once_and_rearms() {
    let sw = switch(&table_prog(&["exact"], false));
    let mut e = entry(vec![MatchKey::Exact(vec![0x22])], 1, 0);
    e.idle_timeout_ns = 1_000_000; // 1 ms
    sw.table_insert("t", e).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    let x = sw.expired_entries();
    assert_eq!(x.len(), 1);
    assert_eq!(x[0].table, "t");
    assert!(sw.expired_entries().is_empty(), "reported once");
    send(&sw, 0, &PKT);
    assert!(sw.expired_entries().is_empty(), "hit re-arms");
    std::thread::sleep(std::time::Duration::from_millis(3));
    assert_eq!(sw.expired_entries().len(), 1);
}

// ----- drop / traffic manager --------------------------------------------------

#[test]
fn mark_to_drop_and_later_egress_spec_write() {
    let sw = switch(&one_action(vec![prim("mark_to_drop", vec![json!({"type": "header", "value": "standard_metadata"})])]));
    assert!(send(&sw, 0, &PKT).is_empty());
    let sw = switch(&one_action(vec![
        prim("mark_to_drop", vec![json!({"type": "header", "value": "standard_metadata"})]),
        assign(f("standard_metadata", "egress_spec"), hx("0x0003")),
    ]));
    assert_eq!(send(&sw, 0, &PKT)[0].0, 3, "a later egress_spec write undoes mark_to_drop");
}

/// Egress writes egress_port, egress_rid, instance_type into h.a, h.b, h.c.
fn with_egress_probe(mut v: Value) -> Value {
    let acts = v["actions"].as_array_mut().unwrap();
    let id = acts.len() as u32;
    acts.push(action("probe", id, &[], vec![
        assign(f("h", "a"), f("standard_metadata", "egress_port")),
        assign(f("h", "b"), f("standard_metadata", "egress_rid")),
        assign(f("h", "c"), f("standard_metadata", "instance_type")),
    ]));
    v["pipelines"][1]["tables"] = json!([call_table("t_probe", 10, "probe", id, Value::Null)]);
    v["pipelines"][1]["init_table"] = json!("t_probe");
    v
}

#[test]
fn multicast_replicates_with_rid() {
    let v = with_egress_probe(one_action(vec![assign(f("standard_metadata", "mcast_grp"), hx("0x0005"))]));
    let sw = switch(&v);
    sw.mc_group_create(MulticastGroup {
        group_id: 5,
        replicas: vec![Replica { egress_port: 2, rid: 7 }, Replica { egress_port: 3, rid: 9 }],
    })
    .unwrap();
    let mut out = send(&sw, 0, &PKT);
    out.sort();
    assert_eq!(out.len(), 2);
    assert_eq!(out[0], (2, vec![2, 7, 0, 5, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff]));
    assert_eq!(out[1], (3, vec![3, 9, 0, 5, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff]));
    assert!(matches!(sw.mc_group_create(MulticastGroup { group_id: 5, replicas: vec![] }), Err(ApiError::AlreadyExists(_))));
    sw.mc_group_delete(5).unwrap();
    assert!(send(&sw, 0, &PKT).is_empty(), "unknown group: nothing sent");
}

#[test]
fn clone_i2e_with_truncation_and_preserved_fields() {
    let mut v = with_egress_probe(one_action(vec![
        assign(f("scalars", "m8"), hx("0x3c")),
        prim("clone_ingress_pkt_to_egress", vec![hx("0x00000004"), hx("0x1")]),
        assign(f("h", "d"), hx("0xdeadbeef")),
    ]));
    v["field_lists"] = json!([{"id": 1, "name": "fl", "elements": [f("scalars", "m8")]}]);
    // egress also copies m8 into h.d's low byte via probe extension
    let acts = v["actions"].as_array_mut().unwrap();
    let last = acts.len() - 1;
    acts[last]["primitives"].as_array_mut().unwrap().push(assign(f("h", "d"), f("scalars", "m8")));
    let sw = switch(&v);
    sw.clone_session_create(CloneSession {
        session_id: 4,
        replicas: vec![Replica { egress_port: 9, rid: 0 }],
        class_of_service: 0,
        packet_length_bytes: 9,
    })
    .unwrap();
    let mut out = send(&sw, 0, &PKT);
    out.sort();
    assert_eq!(out.len(), 2);
    // original: unicast to port 1, instance type 0, m8 = 0x3c
    assert_eq!(out[0], (1, vec![1, 0, 0, 0, 0, 0, 0, 0x3c, 0xee, 0xff]));
    // clone: original packet re-parsed (d not modified), preserved m8, type 1, truncated to 9 bytes
    assert_eq!(out[1], (9, vec![9, 0, 0, 1, 0, 0, 0, 0x3c, 0xee]));
}

#[test]
fn clone_e2e_and_recirculate() {
    // egress: if instance_type == 0: clone E2E to session 1 and set h.a = 0x01;
    let mut v = one_action(vec![]);
    v["actions"].as_array_mut().unwrap().push(action("eg", 1, &[], vec![
        prim("_jump_if_zero", vec![ex("b2d", Value::Null, ex("==", f("standard_metadata", "instance_type"), hx("0x0"))), hx("0x3")]),
        prim("clone_egress_pkt_to_egress", vec![hx("0x1"), hx("0x5")]),
        assign(f("h", "a"), hx("0x01")),
        assign(f("h", "b"), f("standard_metadata", "instance_type")),
    ]));
    v["field_lists"] = json!([{"id": 5, "name": "empty", "elements": []}]);
    v["pipelines"][1]["tables"] = json!([call_table("t_eg", 10, "eg", 1, Value::Null)]);
    v["pipelines"][1]["init_table"] = json!("t_eg");
    let sw = switch(&v);
    sw.clone_session_create(CloneSession { session_id: 1, replicas: vec![Replica { egress_port: 4, rid: 0 }], class_of_service: 0, packet_length_bytes: 0 })
        .unwrap();
    let mut out = send(&sw, 0, &PKT);
    out.sort();
    assert_eq!(out[0], (1, vec![0x01, 0x00, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff]));
    // E2E clone carries the egress-modified headers (a = 1) and has instance type 2
    assert_eq!(out[1], (4, vec![0x01, 0x02, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff]));

    // recirculate once: ingress counts passes in h.a; second pass sees instance_type 4
    let mut v = one_action(vec![
        assign(f("h", "a"), ex("+", f("h", "a"), hx("0x1"))),
        assign(f("h", "b"), f("standard_metadata", "instance_type")),
        assign(f("h", "c"), f("scalars", "m16")),
    ]);
    v["field_lists"] = json!([{"id": 2, "name": "keep", "elements": [f("scalars", "m16")]}]);
    // (egress sees instance_type 0 on both passes, as in simple_switch: the
    // preserved m16 stops the loop)
    v["actions"].as_array_mut().unwrap().push(action("eg", 1, &[], vec![
        prim("_jump_if_zero", vec![ex("b2d", Value::Null, ex("==", f("scalars", "m16"), hx("0x0"))), hx("0x3")]),
        assign(f("scalars", "m16"), hx("0xabcd")),
        prim("recirculate", vec![hx("0x2")]),
    ]));
    v["pipelines"][1]["tables"] = json!([call_table("t_eg", 10, "eg", 1, Value::Null)]);
    v["pipelines"][1]["init_table"] = json!("t_eg");
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT);
    assert_eq!(out, vec![(1, vec![0x13, 0x04, 0xab, 0xcd, 0x55, 0x66, 0x77, 0x88, 0xee, 0xff])]);
}

#[test]
fn resubmit_restarts_with_the_original_packet() {
    // first pass: a = 0xaa (lost on resubmit), m32 = 7 preserved, resubmit;
    // second pass (instance_type 6): d = m32, b = instance type
    let mut v = one_action(vec![
        prim("_jump_if_zero", vec![ex("b2d", Value::Null, ex("==", f("standard_metadata", "instance_type"), hx("0x0"))), hx("0x6")]),
        assign(f("h", "a"), hx("0xaa")),
        assign(f("scalars", "m32"), hx("0x7")),
        prim("resubmit", vec![hx("0x3")]),
        prim("exit", vec![]),
        assign(f("h", "d"), f("scalars", "m32")),
        assign(f("h", "b"), f("standard_metadata", "instance_type")),
    ]);
    v["field_lists"] = json!([{"id": 3, "name": "keep", "elements": [f("scalars", "m32")]}]);
    let out = send(&switch(&v), 0, &PKT);
    assert_eq!(out, vec![(1, vec![0x11, 0x06, 0x33, 0x44, 0, 0, 0, 7, 0xee, 0xff])]);
}

#[test]
fn digest_is_queued_with_field_values() {
    let mut v = one_action(vec![
        assign(f("scalars", "m16"), hx("0x0102")),
        prim("generate_digest", vec![hx("0x1"), hx("0x1")]),
    ]);
    v["learn_lists"] = json!([{"id": 1, "name": "mac_learn_t", "elements": [f("h", "d"), f("scalars", "m16")]}]);
    let sw = switch(&v);
    send(&sw, 0, &PKT);
    let d = sw.take_digests(10);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].learn_list, "mac_learn_t");
    assert_eq!(d[0].values, vec![vec![0x55, 0x66, 0x77, 0x88], vec![0x01, 0x02]]);
    assert!(sw.take_digests(10).is_empty());
}

// ----- externs -------------------------------------------------------------------

#[test]
fn registers_counters_and_meters() {
    let mut v = one_action(vec![
        // r[1] = r[1] + a ; d = r[1]
        prim("register_read", vec![f("scalars", "m32"), json!({"type": "register_array", "value": "r"}), hx("0x1")]),
        prim("register_write", vec![json!({"type": "register_array", "value": "r"}), hx("0x1"), ex("+", f("scalars", "m32"), f("h", "a"))]),
        prim("register_read", vec![f("h", "d"), json!({"type": "register_array", "value": "r"}), hx("0x1")]),
        prim("count", vec![json!({"type": "counter_array", "value": "c"}), hx("0x2")]),
        prim("execute_meter", vec![json!({"type": "meter_array", "value": "m"}), hx("0x0"), f("h", "b")]),
    ]);
    v["register_arrays"] = json!([{"name": "r", "id": 0, "size": 4, "bitwidth": 32}]);
    v["counter_arrays"] = json!([{"name": "c", "id": 0, "size": 4, "is_direct": false}]);
    v["meter_arrays"] = json!([{"name": "m", "id": 0, "type": "packets", "rate_count": 2, "size": 1, "is_direct": false}]);
    let sw = switch(&v);
    assert_eq!(&send(&sw, 0, &PKT)[0].1[4..8], &[0, 0, 0, 0x11]);
    assert_eq!(&send(&sw, 0, &PKT)[0].1[4..8], &[0, 0, 0, 0x22]);
    assert_eq!(sw.register_read("r", 1).unwrap(), vec![0, 0, 0, 0x22]);
    sw.register_write("r", 1, &[0x01, 0, 0, 0]).unwrap();
    assert_eq!(&send(&sw, 0, &PKT)[0].1[4..8], &[0x01, 0, 0, 0x11]);
    assert!(matches!(sw.register_read("r", 4), Err(ApiError::InvalidArgument(_))));
    assert_eq!(sw.counter_read("c", 2).unwrap(), CounterData { packets: 3, bytes: 30 });
    // meter: 1 pkt/s committed burst 1, peak 1 pkt/s burst 2 -> green, yellow, red
    sw.meter_set("m", 0, Some(MeterConfig { cir: 1, cburst: 1, pir: 1, pburst: 2 })).unwrap();
    let colors: Vec<u8> = (0..3).map(|_| send(&sw, 0, &PKT)[0].1[1]).collect();
    assert_eq!(colors, vec![0, 1, 2]);
    sw.meter_set("m", 0, None).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[1], 0, "unconfigured meter is green");
    let m = &sw.pipeline_stats().unwrap().meters;
    assert_eq!((m[0].name.as_str(), m[0].colours), ("m", [5, 1, 1]), "colour counts of all 7 packets");
}

#[test]
fn direct_meter_colours_table_hits() {
    let mut v = table_prog(&["exact"], false);
    v["meter_arrays"] = json!([{"name": "dm", "id": 0, "type": "bytes", "rate_count": 2, "size": 64, "is_direct": true,
        "binding": "t", "result_target": ["h", "d"]}]);
    v["pipelines"][0]["tables"][0]["direct_meters"] = json!("dm");
    let sw = switch(&v);
    sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 1, 0)).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[7], 0, "unconfigured: green");
    // 10-byte packets; committed burst 10 bytes, peak 15 bytes: green, yellow? (peak has 5 left) -> red
    sw.table_set_meter("t", &[MatchKey::Exact(vec![0x22])], 0, Some(MeterConfig { cir: 1, cburst: 10, pir: 1, pburst: 25 })).unwrap();
    let colors: Vec<u8> = (0..3).map(|_| send(&sw, 0, &PKT)[0].1[7]).collect();
    assert_eq!(colors, vec![0, 1, 2]);
    assert_eq!(sw.pipeline_stats().unwrap().meters[0].colours, [2, 1, 1]);
    assert_eq!(sw.table_read("t").unwrap()[0].meter, Some(MeterConfig { cir: 1, cburst: 10, pir: 1, pburst: 25 }));
}

#[test]
fn hash_offset_and_selector_groups() {
    let mut v = one_action(vec![prim(
        "modify_field_with_hash_based_offset",
        vec![f("h", "c"), hx("0x0"), json!({"type": "calculation", "value": "crc16_calc"}), hx("0x10000")],
    )]);
    v["calculations"] = json!([{"name": "crc16_calc", "id": 0, "algo": "crc16", "input": [f("h", "a"), f("h", "b")]}]);
    let out = send(&switch(&v), 0, &PKT);
    let want = crate::hash::crc(&crate::hash::CRC16, &[0x11, 0x22]) as u16;
    assert_eq!(&out[0].1[2..4], &want.to_be_bytes());

    // action selector: group of two members; the member is chosen by hashing h.d
    let mut v = base();
    v["actions"] = json!([action("set_a", 0, &[("v", 8)], vec![assign(f("h", "a"), rd(0)), assign(f("standard_metadata", "egress_spec"), hx("0x2"))])]);
    v["pipelines"][0]["action_profiles"] = json!([{"name": "sel", "id": 0, "max_size": 16,
        "selector": {"algo": "crc32", "input": [f("h", "d")]}}]);
    v["pipelines"][0]["tables"] = json!([{"name": "t", "id": 0, "key": [{"match_type": "exact", "target": ["h", "b"], "mask": null}],
        "match_type": "exact", "type": "indirect_ws", "action_profile": "sel", "max_size": 16, "with_counters": false,
        "support_timeout": false, "direct_meters": null, "action_ids": [0], "actions": ["set_a"], "base_default_next": null,
        "next_tables": {"set_a": null}}]);
    v["pipelines"][0]["init_table"] = json!("t");
    let sw = switch(&v);
    for m in 1..=2u32 {
        sw.member_add("sel", Member { member_id: m, action: ActionSpec { action: "set_a".into(), params: vec![vec![m as u8 * 0x10]] } }).unwrap();
    }
    sw.group_add("sel", Group { group_id: 1, members: vec![(1, 1), (2, 1)], max_size: 4 }).unwrap();
    sw.table_insert("t", TableEntry { key: vec![MatchKey::Exact(vec![0x22])], action: EntryAction::Group(1), priority: 0, idle_timeout_ns: 0 }).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for d in 0..32u8 {
        let mut p = PKT;
        p[7] = d;
        let out = send(&sw, 0, &p);
        let hsh = crate::hash::crc(&crate::hash::CRC32, &p[4..8]);
        let expect = if hsh.is_multiple_of(2) { 0x10 } else { 0x20 };
        assert_eq!(out[0].1[0], expect, "member chosen by crc32 over the selector input");
        seen.insert(out[0].1[0]);
    }
    assert_eq!(seen.len(), 2, "both members used");
    assert!(matches!(sw.member_delete("sel", 1), Err(ApiError::InvalidArgument(_))), "member in use");
    // indirect via member
    sw.table_modify("t", TableEntry { key: vec![MatchKey::Exact(vec![0x22])], action: EntryAction::Member(2), priority: 0, idle_timeout_ns: 0 }).unwrap();
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 0x20);
}

// ----- parser ----------------------------------------------------------------------

#[test]
fn parser_errors_continue_into_ingress() {
    let v = one_action(vec![assign(f("scalars", "m32"), f("standard_metadata", "parser_error"))]);
    let mut v = v;
    // put the parser error into h2 (made valid) so we can see it
    let acts = v["actions"][0]["primitives"].as_array_mut().unwrap();
    acts.push(prim("add_header", vec![json!({"type": "header", "value": "h2"})]));
    acts.push(assign(f("h2", "d"), f("standard_metadata", "parser_error")));
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT[..5]);
    // h is not extracted (too short): the 5 bytes stay as payload; h2 carries PacketTooShort = 1
    assert_eq!(out, vec![(1, vec![0, 0, 0, 0, 0, 0, 0, 1, 0x11, 0x22, 0x33, 0x44, 0x55])]);
    assert_eq!(send(&sw, 0, &[]).len(), 1, "an empty frame still runs the pipeline");
}

#[test]
fn parser_select_lookahead_verify_vsets_and_stacks() {
    let mut v = one_action(vec![]);
    v["header_stacks"] = json!([{"name": "st", "id": 0, "header_type": "h_t", "header_ids": [5, 6]}]);
    v["headers"].as_array_mut().unwrap().extend([
        json!({"name": "st[0]", "id": 5, "header_type": "h_t", "metadata": false}),
        json!({"name": "st[1]", "id": 6, "header_type": "h_t", "metadata": false}),
    ]);
    v["deparsers"][0]["order"] = json!(["h", "st[0]", "st[1]", "h2", "w"]);
    v["parse_vsets"] = json!([{"name": "vs", "id": 0, "compressed_bitwidth": 8}]);
    // start: extract h; select(lookahead<8>) 0x01 -> push, vs -> push, default accept
    // push: extract st.next; verify(st.last.a != 0xff, error 4); select(st.last.b): 0x00 -> accept, default -> push
    v["parsers"][0]["parse_states"] = json!([
        {"name": "start", "id": 0, "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
         "transition_key": [{"type": "lookahead", "value": [0, 8]}],
         "transitions": [{"type": "hexstr", "value": "0x01", "mask": null, "next_state": "push"},
                         {"type": "parse_vset", "value": "vs", "mask": null, "next_state": "push"},
                         {"type": "default", "value": null, "mask": null, "next_state": null}]},
        {"name": "push", "id": 1, "parser_ops": [
            {"op": "extract", "parameters": [{"type": "stack", "value": "st"}]},
            {"op": "verify", "parameters": [ex("!=", json!({"type": "stack_field", "value": ["st", "a"]}), hx("0xff")), hx("0x4")]}],
         "transition_key": [{"type": "stack_field", "value": ["st", "b"]}],
         "transitions": [{"type": "hexstr", "value": "0x00", "mask": null, "next_state": null},
                         {"type": "default", "value": null, "mask": null, "next_state": "push"}]}
    ]);
    let acts = v["actions"][0]["primitives"].as_array_mut().unwrap();
    acts.push(assign(f("h", "d"), f("standard_metadata", "parser_error")));
    acts.push(assign(f("h", "a"), json!({"type": "expression", "value": {"op": "size_stack", "left": null, "right": {"type": "header_stack", "value": "st"}}})));
    let sw = switch(&v);
    let mut p = PKT.to_vec();
    p.truncate(8);
    let s1 = [0x01, 0x05, 0, 0, 0, 0, 0, 0];
    let s2 = [0x02, 0x00, 0, 0, 0, 0, 0, 0];
    let frame: Vec<u8> = [&p[..], &s1, &s2, &[0xab]].concat();
    let out = send(&sw, 0, &frame);
    let mut want = vec![0x02, 0x22, 0x33, 0x44, 0, 0, 0, 0];
    want.extend_from_slice(&s1);
    want.extend_from_slice(&s2);
    want.push(0xab);
    assert_eq!(out, vec![(1, want)], "two stack elements parsed, no error");
    // a third element would overflow the stack: StackOutOfBounds (3)
    let frame: Vec<u8> = [&p[..], &s1, &[0x02, 0x05, 0, 0, 0, 0, 0, 0], &s2].concat();
    assert_eq!(send(&sw, 0, &frame)[0].1[7], 3);
    // verify failure: error 4
    let frame: Vec<u8> = [&p[..], &[0x01, 0xff, 0, 0, 0, 0, 0, 0], &[0xff, 0, 0, 0, 0, 0, 0, 0]].concat();
    assert_eq!(send(&sw, 0, &frame)[0].1[7], 4);
    // value set: 0x07 only selects after the control plane adds it
    let frame: Vec<u8> = [&p[..], &[0x07, 0x00, 0, 0, 0, 0, 0, 0]].concat();
    assert_eq!(send(&sw, 0, &frame)[0].1[0], 0, "no stack element");
    sw.value_set_write("vs", vec![(vec![0x07], None)]).unwrap();
    assert_eq!(send(&sw, 0, &frame)[0].1[0], 1, "value set member selects");
}

#[test]
fn header_stack_push_pop_and_unions() {
    let mut v = one_action(vec![]);
    v["header_stacks"] = json!([{"name": "st", "id": 0, "header_type": "h_t", "header_ids": [5, 6]}]);
    v["headers"].as_array_mut().unwrap().extend([
        json!({"name": "st[0]", "id": 5, "header_type": "h_t", "metadata": false}),
        json!({"name": "st[1]", "id": 6, "header_type": "h_t", "metadata": false}),
    ]);
    v["header_union_types"] = json!([{"name": "u_t", "id": 0, "headers": [["x", "h_t"], ["y", "h_t"]]}]);
    v["header_unions"] = json!([{"name": "u", "id": 0, "union_type": "u_t", "header_ids": [3, 2]}]);
    v["deparsers"][0]["order"] = json!(["st[0]", "st[1]", "h", "h2", "w"]);
    let acts = v["actions"][0]["primitives"].as_array_mut().unwrap();
    // st.push_front(1); st[0].setValid(); st[0] = h; st[0].a = 0x99; then h2.setValid() invalidates h (same union)
    acts.push(prim("push", vec![json!({"type": "header_stack", "value": "st"}), hx("0x1")]));
    acts.push(prim("assign_header", vec![
        json!({"type": "expression", "value": {"op": "dereference_header_stack", "left": {"type": "header_stack", "value": "st"}, "right": hx("0x0")}}),
        json!({"type": "header", "value": "h"})]));
    acts.push(assign(
        json!({"type": "expression", "value": {"op": "access_field", "left": {"type": "expression", "value":
            {"op": "dereference_header_stack", "left": {"type": "header_stack", "value": "st"}, "right": hx("0x0")}}, "right": 0}}),
        hx("0x99")));
    acts.push(prim("add_header", vec![json!({"type": "header", "value": "h2"})]));
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT);
    assert_eq!(out, vec![(1, vec![0x99, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0xee, 0xff])]);
}

#[test]
fn checksum_verify_sets_checksum_error_and_update_with_payload() {
    let mut v = one_action(vec![assign(f("h", "a"), f("standard_metadata", "checksum_error"))]);
    v["calculations"] = json!([{"name": "ck", "id": 0, "algo": "csum16", "input": [f("h", "a"), f("h", "b"), f("h", "d"), {"type": "payload"}]}]);
    v["checksums"] = json!([{"name": "c", "id": 0, "target": ["h", "c"], "type": "generic", "calculation": "ck",
        "verify": true, "update": true, "if_cond": null}]);
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT);
    // PKT's c (0x3344) is not the checksum: checksum_error = 1 -> a = 1; then update
    let b = &out[0].1;
    assert_eq!(b[0], 1);
    let mut data = vec![b[0], b[1]];
    data.extend_from_slice(&b[4..]);
    assert_eq!(u16::from_be_bytes([b[2], b[3]]), crate::hash::csum16(&data), "updated over fields + payload");
    // a packet with a correct checksum verifies
    let mut good = PKT;
    let mut d = vec![good[0], good[1]];
    d.extend_from_slice(&good[4..]);
    let ck = crate::hash::csum16(&d).to_be_bytes();
    good[2] = ck[0];
    good[3] = ck[1];
    assert_eq!(send(&sw, 0, &good)[0].1[0], 0);
}

#[test]
fn varbit_extract_and_deparse() {
    let mut v = one_action(vec![]);
    v["header_types"].as_array_mut().unwrap().push(json!({"name": "opt_t", "id": 9, "fields": [["len", 8, false], ["data", "*"]], "max_length": 9}));
    v["headers"].as_array_mut().unwrap().push(json!({"name": "opt", "id": 9, "header_type": "opt_t", "metadata": false}));
    v["deparsers"][0]["order"] = json!(["h", "opt"]);
    // p4c's shape: m8 = lookahead<bit<8>>(); extract(opt, (bit<32>)(m8 << 3))
    v["parsers"][0]["parse_states"][0]["parser_ops"].as_array_mut().unwrap().extend([
        json!({"op": "set", "parameters": [f("scalars", "m8"), {"type": "lookahead", "value": [0, 8]}]}),
        json!({"op": "extract_VL", "parameters": [
            {"type": "regular", "value": "opt"},
            {"type": "expression", "value": ex("<<", f("scalars", "m8"), hx("0x3"))}]})]);
    let acts = v["actions"][0]["primitives"].as_array_mut().unwrap();
    acts.push(assign(f("h", "a"), f("opt", "len")));
    let sw = switch(&v);
    let frame: Vec<u8> = [&PKT[..8], &[0x02, 0xaa, 0xbb, 0xcc, 0xdd]].concat();
    // lookahead<8> at the start of opt = 2 -> 16 bits of data... (the length counts the data bytes)
    let out = send(&sw, 0, &frame);
    assert_eq!(out, vec![(1, [&[0x02u8][..], &PKT[1..8], &[0x02, 0xaa, 0xbb, 0xcc, 0xdd]].concat())]);
    // too long for max_length: HeaderTooShort, packet continues
    let frame: Vec<u8> = [&PKT[..8], &[0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0]].concat();
    assert_eq!(send(&sw, 0, &frame).len(), 1);
}

#[test]
fn assert_failure_drops_and_truncate_shortens() {
    let sw = switch(&one_action(vec![prim("assert", vec![ex("b2d", Value::Null, ex("==", f("h", "a"), hx("0x00")))])]));
    assert!(send(&sw, 0, &PKT).is_empty());
    let sw = switch(&one_action(vec![prim("truncate", vec![hx("0x3")]), prim("log_msg", vec![
        json!({"type": "string", "value": "a={}"}), json!({"type": "parameters_vector", "value": [f("h", "a")]})])]));
    assert_eq!(send(&sw, 0, &PKT), vec![(1, vec![0x11, 0x22, 0x33])]);
}

#[test]
fn random_stays_in_range() {
    let sw = switch(&one_action(vec![prim("modify_field_rng_uniform", vec![f("h", "a"), hx("0x10"), hx("0x13")])]));
    for _ in 0..50 {
        let a = send(&sw, 0, &PKT)[0].1[0];
        assert!((0x10..=0x13).contains(&a));
    }
}

#[test]
fn timestamps_are_microseconds() {
    let sw = switch(&one_action(vec![assign(f("h", "d"), f("standard_metadata", "ingress_global_timestamp"))]));
    let t0 = sw.now_us();
    let b = send(&sw, 0, &PKT)[0].1.clone();
    let ts = u32::from_be_bytes([b[4], b[5], b[6], b[7]]) as u64;
    let t1 = sw.now_us();
    assert!(ts >= t0 & 0xffff_ffff && ts <= t1 & 0xffff_ffff, "{t0} <= {ts} <= {t1}");
}

#[test]
fn trace_reports_states_tables_actions_and_log_msg() {
    let sw = switch(&one_action(vec![prim("log_msg", vec![
        json!({"type": "string", "value": "a={} b={}"}),
        json!({"type": "parameters_vector", "value": [f("h", "a"), f("h", "b")]})])]));
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let l2 = lines.clone();
    let mut w = sw.new_worker();
    w.set_trace(Some(Box::new(move |s: &str| l2.lock().unwrap().push(s.to_string()))));
    sw.process(&mut w, 0, &PKT, &mut |_, _| {});
    let got = lines.lock().unwrap().clone();
    assert_eq!(got, vec![
        "parser parser: state start at byte 0".to_string(),
        "table t_act: miss, default action".to_string(),
        "action act".to_string(),
        "log_msg: a=17 b=34".to_string(),
    ]);
}

/// Runs `send_some` (sends packets, returns how many) while another thread
/// rewrites the entry for h.b = 0x22 (action data alternating 0x01 / 0x02) and
/// churns other entries, until both sides did enough work to overlap: 20,000
/// packets and 200 writer rounds. On a loaded machine the writer may get little
/// CPU, so the packet count is not fixed (capped at 60 s).
fn while_a_writer_churns(sw: &std::sync::Arc<Switch>, mut send_some: impl FnMut() -> u32) {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 1, 0)).unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let rounds = std::sync::Arc::new(AtomicU32::new(0));
    let (sw2, stop2, rounds2) = (sw.clone(), stop.clone(), rounds.clone());
    let writer = std::thread::spawn(move || {
        let mut n = 0u32;
        while !stop2.load(Ordering::Relaxed) {
            let a = (n % 2) as u8 + 1;
            sw2.table_modify("t", entry(vec![MatchKey::Exact(vec![0x22])], a, 0)).unwrap();
            let k = (n % 200) as u8 + 0x30;
            let _ = sw2.table_insert("t", entry(vec![MatchKey::Exact(vec![k])], 9, 0));
            let _ = sw2.table_delete("t", &[MatchKey::Exact(vec![k.wrapping_sub(7)])], 0);
            n += 1;
            rounds2.store(n, Ordering::Relaxed);
        }
        n
    });
    let (mut sent, deadline) = (0u32, std::time::Instant::now() + std::time::Duration::from_secs(60));
    while (sent < 20_000 || rounds.load(Ordering::Relaxed) < 200) && std::time::Instant::now() < deadline {
        sent += send_some();
    }
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap();
    assert!(writes >= 200, "the writer made progress ({writes} rounds while {sent} packets were sent)");
}

/// Sends one packet: it must hit (never miss) and see a whole entry (a = 1 or 2).
fn send_expect_whole_entry(sw: &Switch, w: &mut Worker) {
    let mut out = Vec::new();
    sw.process(w, 0, &PKT, &mut |p, b| out.push((p, b.to_vec())));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, 2, "hit");
    assert_eq!(out[0].1[3], 0x01, "__HIT__ branch");
    let a = out[0].1[0];
    assert!(a == 1 || a == 2, "whole entry, got {a}");
}

#[test]
fn updates_while_traffic_flows_lose_nothing_and_are_atomic() {
    let sw = std::sync::Arc::new(switch(&table_prog(&["exact"], false)));
    let mut w = sw.new_worker();
    while_a_writer_churns(&sw, || {
        send_expect_whole_entry(&sw, &mut w);
        1
    });
}

#[test]
fn a_pinned_worker_sees_its_snapshot_until_it_unpins_and_writers_are_not_stuck() {
    let sw = std::sync::Arc::new(switch(&table_prog(&["exact"], false)));
    sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 1, 0)).unwrap();
    let mut w = sw.new_worker();
    let a_of = |sw: &Switch, w: &mut crate::api::Worker| {
        let mut out = Vec::new();
        sw.process(w, 0, &PKT, &mut |p, b| out.push((p, b.to_vec())));
        out[0].1[0]
    };
    sw.pin(&mut w);
    assert_eq!(a_of(&sw, &mut w), 1);
    // Two writes: the second needs the snapshot the worker holds, so it waits
    // until the worker unpins (here, from another thread after a moment).
    let sw2 = sw.clone();
    let writer = std::thread::spawn(move || {
        sw2.table_modify("t", entry(vec![MatchKey::Exact(vec![0x22])], 2, 0)).unwrap();
        sw2.table_modify("t", entry(vec![MatchKey::Exact(vec![0x22])], 3, 0)).unwrap();
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(a_of(&sw, &mut w), 1, "the batch keeps its snapshot");
    sw.unpin(&mut w);
    writer.join().unwrap();
    assert_eq!(a_of(&sw, &mut w), 3, "unpinned: the latest entry");
    sw.pin(&mut w);
    assert_eq!(a_of(&sw, &mut w), 3, "a new batch sees the writes");
    sw.unpin(&mut w);
}

#[test]
fn pinned_batches_while_tables_change_lose_nothing_and_are_atomic() {
    let sw = std::sync::Arc::new(switch(&table_prog(&["exact"], false)));
    let mut w = sw.new_worker();
    while_a_writer_churns(&sw, || {
        sw.pin(&mut w);
        for _ in 0..64 {
            send_expect_whole_entry(&sw, &mut w);
        }
        sw.unpin(&mut w);
        64
    });
}

#[test]
fn controller_header_layouts_and_introspection() {
    let mut v = one_action(vec![]);
    v["header_types"].as_array_mut().unwrap().push(json!({"name": "packet_in_header_t", "id": 7,
        "fields": [["ingress_port", 9, false], ["_pad", 7, false]]}));
    v["headers"].as_array_mut().unwrap().push(json!({"name": "packet_in", "id": 7, "header_type": "packet_in_header_t", "metadata": false}));
    let p = load_program(&v.to_string()).unwrap();
    assert_eq!(p.controller_header("packet_in"), Some(vec![("ingress_port".to_string(), 9), ("_pad".to_string(), 7)]));
    assert_eq!(p.controller_header("packet_out"), None);
    let t = p.info().table("t_act").unwrap();
    assert!(t.default_action_const);
    assert_eq!(t.default_action, Some(ActionSpec { action: "act".into(), params: vec![] }));
    let tp = load_program(&table_prog(&["ternary", "range"], true).to_string()).unwrap();
    let t = tp.info().table("t").unwrap();
    assert_eq!(t.keys.iter().map(|k| (k.name.as_str(), k.match_kind, k.bitwidth)).collect::<Vec<_>>(),
        vec![("h.b", MatchKind::Ternary, 8), ("h.c", MatchKind::Range, 16)]);
    assert_eq!(t.direct_counter.as_deref(), Some("t_counter"));
    assert!(t.support_timeout);
    assert_eq!(tp.info().action("set_a").unwrap().params, vec![("v".to_string(), 8)]);
}

#[test]
fn reading_100k_entries_is_fast() {
    let sw = switch(&table_prog(&["exact"], false));
    let mut v = table_prog(&["exact"], false);
    v["pipelines"][0]["tables"][0]["key"][0]["target"] = json!(["h", "d"]);
    v["pipelines"][0]["tables"][0]["max_size"] = json!(200000);
    let sw2 = switch(&v);
    drop(sw);
    for i in 0..100_000u32 {
        sw2.table_insert("t", entry(vec![MatchKey::Exact(i.to_be_bytes().to_vec())], 1, 0)).unwrap();
    }
    let t0 = std::time::Instant::now();
    let rd = sw2.table_read("t").unwrap();
    let el = t0.elapsed();
    eprintln!("table_read of 100,000 entries: {el:?}");
    assert_eq!(rd.len(), 100_000);
    assert!(rd.windows(2).all(|w| w[0].entry.key < w[1].entry.key), "sorted by key");
    assert!(el.as_secs_f64() < 5.0, "table_read of 100k entries took {el:?}");
}

#[test]
fn parallel_workers_share_tables_and_counters() {
    let sw = std::sync::Arc::new(switch(&table_prog(&["exact"], false)));
    sw.table_insert("t", entry(vec![MatchKey::Exact(vec![0x22])], 1, 0)).unwrap();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let sw = sw.clone();
            std::thread::spawn(move || {
                let mut w = sw.new_worker();
                let mut n = 0;
                for _ in 0..5_000 {
                    sw.process(&mut w, 0, &PKT, &mut |p, b| {
                        assert_eq!((p, b[0]), (2, 1));
                        n += 1;
                    });
                }
                n
            })
        })
        .collect();
    let total: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(total, 10_000);
    assert_eq!(sw.table_read("t").unwrap()[0].counter, Some(CounterData { packets: 10_000, bytes: 100_000 }));
}

/// `threads` workers each send `per` packets at once; returns every output.
fn hammer(sw: &std::sync::Arc<Switch>, threads: usize, per: usize) -> Vec<Vec<u8>> {
    let ts: Vec<_> = (0..threads)
        .map(|_| {
            let sw = sw.clone();
            std::thread::spawn(move || {
                let mut w = sw.new_worker();
                let mut got = Vec::with_capacity(per);
                for _ in 0..per {
                    sw.process(&mut w, 0, &PKT, &mut |_, b| got.push(b.to_vec()));
                }
                got
            })
        })
        .collect();
    ts.into_iter().flat_map(|t| t.join().unwrap()).collect()
}

/// A read-modify-write of one register cell inside one action, run by four
/// workers at once, loses no increment and hands out every value once (the
/// action holds the register for its extent, as BMv2 guarantees), and an
/// egress action touching the same register is serialised with it too.
#[test]
fn parallel_workers_lose_no_register_increment() {
    let reg = || json!({"type": "register_array", "value": "r"});
    // ingress: m32 = r[0]; r[0] = m32 + 1; h.d = m32 + 1
    let mut v = one_action(vec![
        prim("register_read", vec![f("scalars", "m32"), reg(), hx("0x0")]),
        prim("register_write", vec![reg(), hx("0x0"), ex("+", f("scalars", "m32"), hx("0x1"))]),
        assign(f("h", "d"), ex("&", ex("+", f("scalars", "m32"), hx("0x1")), hx("0xffffffff"))),
    ]);
    // egress: r[1] += 1 and r[0] += 1 in one action
    v["register_arrays"] = json!([{"name": "r", "id": 0, "size": 2, "bitwidth": 32}]);
    v["actions"].as_array_mut().unwrap().push(action("eg", 1, &[], vec![
        prim("register_read", vec![f("scalars", "m32"), reg(), hx("0x1")]),
        prim("register_write", vec![reg(), hx("0x1"), ex("+", f("scalars", "m32"), hx("0x1"))]),
        prim("register_read", vec![f("scalars", "m32"), reg(), hx("0x0")]),
        prim("register_write", vec![reg(), hx("0x0"), ex("+", f("scalars", "m32"), hx("0x1"))]),
    ]));
    v["pipelines"][1]["tables"] = json!([call_table("t_eg", 0, "eg", 1, Value::Null)]);
    v["pipelines"][1]["init_table"] = json!("t_eg");
    let sw = std::sync::Arc::new(switch(&v));
    let (threads, per) = (4, 20_000);
    let n = (threads * per) as u32;
    let mut seen: Vec<u32> = hammer(&sw, threads, per).iter().map(|o| u32::from_be_bytes([o[4], o[5], o[6], o[7]])).collect();
    assert_eq!(sw.register_read("r", 1).unwrap(), n.to_be_bytes().to_vec(), "egress increments of r[1]");
    assert_eq!(sw.register_read("r", 0).unwrap(), (2 * n).to_be_bytes().to_vec(), "ingress + egress increments of r[0]");
    // Ingress values are unique (an egress increment may come between two of them).
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), n as usize, "every ingress read-modify-write saw its own value");
}

/// The control plane's register read, write and reset take the action's lock
/// group (as BMv2's do): while workers run `r[0] += 1; r[1] += 1` in one
/// action, a read of both cells never sees one increment without the other,
/// and a write or reset of both is never split by an increment (which would
/// leave the cells unequal for good). Without the lock this fails within a
/// few hundred reads on 2 cores.
#[test]
fn control_plane_register_access_is_atomic_with_actions() {
    let reg = || json!({"type": "register_array", "value": "r"});
    let inc = |i: &str| {
        vec![
            prim("register_read", vec![f("scalars", "m32"), reg(), hx(i)]),
            prim("register_write", vec![reg(), hx(i), ex("+", f("scalars", "m32"), hx("0x1"))]),
        ]
    };
    let mut v = one_action([inc("0x0"), inc("0x1")].concat());
    v["register_arrays"] = json!([{"name": "r", "id": 0, "size": 2, "bitwidth": 32}]);
    let sw = std::sync::Arc::new(switch(&v));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (sw, stop) = (sw.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut w = sw.new_worker();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    sw.process(&mut w, 0, &PKT, &mut |_, _| {});
                }
            })
        })
        .collect();
    // Until the workers' increments were seen 2000 times (not just our writes).
    let (mut torn, mut moved, mut last) = (Vec::new(), 0, vec![]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut k = 0u32;
    while (k < 20_000 || moved < 2_000) && std::time::Instant::now() < deadline {
        k += 1;
        let c = sw.register_read_cells("r", 0..2).unwrap();
        if c[0] != c[1] {
            torn.push((k, c.clone()));
        }
        moved += (c != last && c[0] != [0; 4] && c[0] != [0, 0, 0x10, 0]) as u32;
        last = c;
        match k % 100 {
            0 => sw.register_write_cells("r", 0..2, &[0, 0, 0x10, 0]).unwrap(),
            50 => sw.register_reset("r").unwrap(),
            _ => {}
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    workers.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(torn.len(), 0, "reads that saw half an action: first {:?}", torn.first());
    assert_eq!(sw.register_read("r", 0).unwrap(), sw.register_read("r", 1).unwrap(), "no write split an action");
    assert!(moved >= 2_000, "the workers ran alongside: {moved} changes seen");
}

/// A meter with rates 0 gives exactly its bursts' worth of green and yellow,
/// however many workers colour packets at once.
#[test]
fn parallel_workers_meter_exactly_the_burst() {
    let mut v = one_action(vec![prim("execute_meter", vec![json!({"type": "meter_array", "value": "m"}), hx("0x0"), f("h", "b")])]);
    v["meter_arrays"] = json!([{"name": "m", "id": 0, "type": "packets", "rate_count": 2, "size": 1, "is_direct": false}]);
    let sw = std::sync::Arc::new(switch(&v));
    sw.meter_set("m", 0, Some(MeterConfig { cir: 0, cburst: 1_000, pir: 0, pburst: 3_000 })).unwrap();
    let mut colours = [0usize; 3];
    for o in hammer(&sw, 4, 5_000) {
        colours[o[1] as usize] += 1;
    }
    assert_eq!(colours, [1_000, 2_000, 17_000], "green, yellow, red");
    assert_eq!(sw.pipeline_stats().unwrap().meters[0].colours, [1_000, 2_000, 17_000]);
}

/// Conditions of every shortcut shape (field non-zero, header valid, field vs
/// constant, their negations, and/or of them, and a general expression) and
/// actions that only write fields route, write and trace exactly as the
/// general evaluator does. Ingress: a chain of conditions over h.a (0x11),
/// h.b (0x22), h2 (invalid) and scalars.m8 (set by the first action); every
/// condition must come out true to reach `t_out`, whose action copies h.b to
/// h.c, sets h.d from a constant and sends to port 3.
#[test]
fn shortcut_conditions_and_field_write_actions_match_the_evaluator() {
    let mut v = base();
    v["actions"] = json!([
        action("set_m8", 0, &[], vec![assign(f("scalars", "m8"), hx("0x05"))]),
        action("out", 1, &[], vec![
            assign(f("h", "c"), f("h", "b")),
            assign(f("h", "d"), hx("0xdeadbeef")),
            assign(f("standard_metadata", "egress_spec"), hx("0x0003")),
        ]),
    ]);
    let d2b = |x: Value| json!({"type": "expression", "value": {"op": "d2b", "left": null, "right": x}});
    let not = |x: Value| ex("not", Value::Null, x);
    let conds = [
        ("c_nonzero", d2b(f("h", "a"))),
        ("c_valid", d2b(f("h", "$valid$"))),
        ("c_invalid", not(d2b(f("h2", "$valid$")))),
        ("c_eq", ex("==", f("h", "a"), hx("0x11"))),
        ("c_not_gt", not(ex(">", f("scalars", "m8"), hx("0x05")))),
        ("c_le_mirror", ex("<=", hx("0x22"), f("h", "b"))),
        ("c_and", ex("and", not(d2b(f("scalars", "m16"))), ex("!=", f("h", "b"), hx("0x00")))),
        ("c_or", ex("or", d2b(f("h2", "$valid$")), ex("<", f("h", "a"), f("h", "b")))),
        ("c_tree", ex("==", ex("+", f("h", "a"), f("h", "b")), hx("0x33"))),
    ];
    let mut cj = Vec::new();
    for (i, (name, e)) in conds.iter().enumerate() {
        let next = conds.get(i + 1).map_or(json!("t_out"), |(n, _)| json!(n));
        cj.push(json!({"name": name, "id": i, "expression": e, "true_next": next, "false_next": null}));
    }
    v["pipelines"][0]["conditionals"] = json!(cj);
    v["pipelines"][0]["tables"] = json!([
        call_table("t_m8", 0, "set_m8", 0, json!("c_nonzero")),
        call_table("t_out", 1, "out", 1, Value::Null),
    ]);
    v["pipelines"][0]["init_table"] = json!("t_m8");
    let sw = switch(&v);
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let l2 = lines.clone();
    let mut w = sw.new_worker();
    w.set_trace(Some(Box::new(move |s: &str| l2.lock().unwrap().push(s.to_string()))));
    let mut out = Vec::new();
    sw.process(&mut w, 0, &PKT, &mut |p, b| out.push((p, b.to_vec())));
    let mut want = vec![
        "parser parser: state start at byte 0".to_string(),
        "table t_m8: miss, default action".to_string(),
        "action set_m8".to_string(),
    ];
    want.extend(conds.iter().map(|(n, _)| format!("condition {n}: true")));
    want.extend(["table t_out: miss, default action".to_string(), "action out".to_string()]);
    assert_eq!(*lines.lock().unwrap(), want);
    // h = a:11 b:22 c:0022 d:deadbeef, then the unparsed payload
    assert_eq!(out, vec![(3, vec![0x11, 0x22, 0x00, 0x22, 0xde, 0xad, 0xbe, 0xef, 0xee, 0xff])]);
    // h.a = 0 fails the first condition: nothing runs after it, egress_spec stays 0
    let mut pkt = PKT;
    pkt[0] = 0;
    assert_eq!(send(&sw, 0, &pkt), vec![(0, pkt.to_vec())]);
    // h.b = 0x21 fails c_le_mirror (0x22 <= h.b)
    let mut pkt = PKT;
    pkt[1] = 0x21;
    assert_eq!(send(&sw, 0, &pkt), vec![(0, pkt.to_vec())]);
}

/// The plan's one-word parser selects (two fields under masks, a lookahead,
/// no match) and its compound conditions broken into atom branches (`and`,
/// `or`, `not` nested, a general expression inside) give what the
/// interpreter gives, packet for packet, over many packets.
#[test]
fn plan_selects_and_condition_branches_agree_with_the_interpreter() {
    let mut v = base();
    let d2b = |x: Value| json!({"type": "expression", "value": {"op": "d2b", "left": null, "right": x}});
    let not = |x: Value| ex("not", Value::Null, x);
    let tr = |val: &str, mask: Value, next: Value| json!({"type": "hexstr", "value": val, "mask": mask, "next_state": next});
    let extract = |h: &str| json!({"op": "extract", "parameters": [{"type": "regular", "value": h}]});
    v["parsers"][0]["parse_states"] = json!([
        {"name": "start", "id": 0, "parser_ops": [extract("h")],
         "transition_key": [{"type": "field", "value": ["h", "a"]}, {"type": "field", "value": ["h", "b"]}],
         "transitions": [
            tr("0x0102", Value::Null, json!("more")),
            tr("0x1000", json!("0xf000"), json!("more")),
            tr("0x0300", json!("0xff00"), Value::Null),
            tr("0x0000", json!("0x0080"), json!("more")),
            {"type": "default", "value": null, "mask": null, "next_state": null}]},
        {"name": "more", "id": 1, "parser_ops": [extract("h2")],
         "transition_key": [{"type": "lookahead", "value": [4, 8]}],
         "transitions": [tr("0x0e", json!("0x0f"), Value::Null), tr("0x00", json!("0x01"), Value::Null)]}
    ]);
    v["actions"] = json!([
        action("port", 0, &[], vec![assign(f("standard_metadata", "egress_spec"), hx("0x0001"))]),
        action("one", 1, &[], vec![assign(f("h", "d"), hx("0x01"))]),
        action("two", 2, &[], vec![assign(f("h", "d"), hx("0x02"))]),
        action("three", 3, &[], vec![assign(f("h", "d"), hx("0x03"))]),
    ]);
    let conds = json!([
        {"name": "c_first", "id": 0, "true_next": "t_one", "false_next": "c_second", "expression":
            ex("or", ex("and", ex(">", f("h", "a"), hx("0x10")), not(ex("==", f("h", "b"), hx("0x22")))),
                     ex("and", d2b(f("h2", "$valid$")), not(ex("or", ex("==", f("h", "c"), hx("0x0")), d2b(f("scalars", "m8"))))))},
        {"name": "c_second", "id": 1, "true_next": "t_two", "false_next": "t_three", "expression":
            not(ex("or", ex("==", ex("&", f("h", "a"), hx("0x3")), hx("0x0")), ex("and", ex("<", f("h", "b"), f("h", "a")), not(d2b(f("h2", "$valid$"))))))}
    ]);
    v["pipelines"][0]["conditionals"] = conds;
    v["pipelines"][0]["tables"] = json!([
        call_table("t_port", 0, "port", 0, json!("c_first")),
        call_table("t_one", 1, "one", 1, Value::Null),
        call_table("t_two", 2, "two", 2, Value::Null),
        call_table("t_three", 3, "three", 3, Value::Null),
    ]);
    v["pipelines"][0]["init_table"] = json!("t_port");
    let prog = load_program(&v.to_string()).expect("test program loads");
    let sws: Vec<Switch> = [ExecMode::Plan, ExecMode::Interpreter]
        .into_iter()
        .map(|exec| {
            let sw = Switch::new(SwitchConfig { exec, ..SwitchConfig::default() });
            sw.set_program(prog.clone());
            sw
        })
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut seen = std::collections::HashSet::new();
    for i in 0..4000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = x.to_be_bytes();
        // few distinct values per byte so that the transitions and atoms all fire
        let pick = |k: u8| [0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x22, 0x80, 0x1f, 0x0e][(k % 10) as usize];
        let mut frame: Vec<u8> = b.iter().map(|&k| pick(k)).collect();
        frame.extend(b.iter().rev().map(|&k| pick(k >> 3)));
        frame.extend(b.iter().map(|&k| pick(k >> 5)));
        frame.truncate(6 + (i as usize % 19));
        let outs: Vec<_> = sws.iter().map(|sw| send(sw, 0, &frame)).collect();
        assert_eq!(outs[0], outs[1], "frame {frame:02x?}");
        if let Some((_, o)) = outs[0].first() {
            seen.insert((o.get(7).copied(), o.len()));
        }
    }
    // d = 1, 2, 3 or unparsed, at every frame length
    assert!(seen.len() >= 40, "too few paths exercised: {seen:?}");
}

/// A control-plane write of a cell range that reaches past the register's end
/// is refused whole: no cell of it changes (a malformed request changes
/// nothing), and a range that fits is written.
#[test]
fn register_write_past_the_end_changes_no_cell() {
    let mut v = one_action(vec![]);
    v["register_arrays"] = json!([{"name": "r", "id": 0, "size": 2, "bitwidth": 32}]);
    let sw = switch(&v);
    let err = sw.register_write_cells("r", 0..3, &[0, 0, 0, 7]).unwrap_err();
    assert!(format!("{err:?}").contains("index 2 out of range"), "{err:?}");
    assert_eq!(sw.register_read_cells("r", 0..2).unwrap(), vec![vec![0u8; 4]; 2], "nothing written");
    sw.register_write_cells("r", 0..2, &[0, 0, 0, 7]).unwrap();
    assert_eq!(sw.register_read_cells("r", 0..2).unwrap(), vec![vec![0, 0, 0, 7]; 2]);
}
