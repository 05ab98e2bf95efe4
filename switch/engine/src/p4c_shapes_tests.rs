//! JSON constructs in the exact shapes p4c-bm2-ss writes them (hand-written
//! from behavioral-model's docs/JSON_format.md and BMv2's loader, not copied
//! from p4c output): each loads and runs as BMv2 runs it.

use serde_json::{json, Value};

use super::behaviour::*;
use crate::api::*;

/// p4c's primitive parameter: an expression wrapped twice.
fn pexpr(op: Value) -> Value {
    json!({"type": "expression", "value": {"type": "expression", "value": op}})
}

#[test]
fn header_field_signedness_written_as_an_integer() {
    // p4c writes a bool header field as ["x", 1, 0]; BMv2 reads the third
    // element with jsoncpp's asBool, so 1 means signed.
    let mut v = one_action(vec![
        prim("add_header", vec![json!({"type": "header", "value": "hb"})]),
        assign(f("hb", "a"), hx("0x05")),
        assign(f("hb", "x"), hx("0x01")),
        assign(f("hb", "s"), hx("0xff")),
        assign(f("h", "c"), f("hb", "s")),
        assign(f("h", "d"), f("hb", "x")),
    ]);
    v["header_types"].as_array_mut().unwrap().push(json!(
        {"name": "hb_t", "id": 4, "fields": [["a", 7, false], ["x", 1, 0], ["s", 8, 1]]}));
    v["headers"].as_array_mut().unwrap().push(json!({"name": "hb", "id": 5, "header_type": "hb_t", "metadata": false}));
    v["deparsers"][0]["order"] = json!(["h", "hb"]);
    let out = send(&switch(&v), 0, &PKT);
    // h.c = hb.s sign-extended (-1), h.d = hb.x zero-extended (1); hb = a:5, x:1, s:0xff
    assert_eq!(out, vec![(1, vec![0x11, 0x22, 0xff, 0xff, 0, 0, 0, 1, 0x0b, 0xff, 0xee, 0xff])]);
}

#[test]
fn conditional_expression_yielding_a_header_in_a_primitive() {
    // h2 = (h.a == 0x11) ? h : h2, as p4c writes `assign_header` of a `?:`
    let cond = json!({"type": "expression", "value": {"op": "==", "left": f("h", "a"), "right": hx("0x11")}});
    let v = one_action(vec![prim("assign_header", vec![
        json!({"type": "header", "value": "h2"}),
        pexpr(json!({"op": "?", "left": {"type": "header", "value": "h"},
                     "right": {"type": "header", "value": "h2"}, "cond": cond})),
    ])]);
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT);
    let h = &PKT[..8];
    assert_eq!(out, vec![(1, [h, h, &PKT[8..]].concat())], "condition true: h2 becomes a valid copy of h");
    let mut p = PKT;
    p[0] = 0x12;
    assert_eq!(send(&sw, 0, &p), vec![(1, p.to_vec())], "condition false: h2 = h2 stays invalid");

    // the two headers must have one type
    let mut bad = v.clone();
    bad["actions"][0]["primitives"][1]["parameters"][1]["value"]["value"]["left"] = json!({"type": "header", "value": "w"});
    let e = load_program(&bad.to_string()).unwrap_err();
    assert_eq!(e.path, "actions[0].primitives[1].parameters[1].value.value");
}

/// Parser: `scalars.m128 = lookahead<bit<96>>()` as p4c writes it (a `set`
/// whose source is {"type": "lookahead"}), then `extract(h)`. Ingress copies
/// the top 32 bits of the lookahead into h.d and the parser error into h2.d.
fn wide_lookahead_prog() -> Value {
    let top32 = pexpr(json!({"op": "&",
        "left": {"type": "expression", "value": {"op": ">>", "left": f("scalars", "m128"), "right": hx("0x40")}},
        "right": hx("0xffffffff")}));
    let mut v = one_action(vec![
        assign(f("h", "d"), top32),
        prim("add_header", vec![json!({"type": "header", "value": "h2"})]),
        assign(f("h2", "d"), f("standard_metadata", "parser_error")),
    ]);
    v["parsers"][0]["parse_states"][0]["parser_ops"] = json!([
        {"op": "set", "parameters": [f("scalars", "m128"), {"type": "lookahead", "value": [0, 96]}]},
        {"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}
    ]);
    v
}

#[test]
fn parser_set_from_a_lookahead_wider_than_64_bits() {
    let sw = switch(&wide_lookahead_prog());
    let frame: Vec<u8> = (1..=16).collect();
    let out = send(&sw, 0, &frame);
    let want = [&[1, 2, 3, 4, 1, 2, 3, 4][..], &[0, 0, 0, 0, 0, 0, 0, 0], &frame[8..]].concat();
    assert_eq!(out, vec![(1, want)], "h.d = bits 0..32 of the 96-bit lookahead; no parser error");
}

#[test]
fn parser_set_from_a_lookahead_past_the_end_is_packet_too_short() {
    // BMv2 raises PacketTooShort when fewer bytes remain than the lookahead
    // reads (p4c's issue1768 shape: lookahead<B8> on a 2-byte frame).
    let sw = switch(&wide_lookahead_prog());
    let out = send(&sw, 0, &PKT);
    let want = [&[0, 0, 0, 0, 0, 0, 0, 1][..], &PKT].concat();
    assert_eq!(out, vec![(1, want)], "h not extracted, parser_error = PacketTooShort (1), frame kept as payload");
}

/// Table `t` keyed on h.c with p4c's `entries`.
fn entries_prog(kind: &str, entries: Value) -> Value {
    let mut v = table_prog(&[kind], false);
    v["pipelines"][0]["tables"][0]["key"][0]["target"] = json!(["h", "c"]);
    v["pipelines"][0]["tables"][0]["entries"] = entries;
    v
}

fn ternary_entry(key: &str, mask: &str, data: &str, prio: i64) -> Value {
    json!({"match_key": [{"match_type": "ternary", "key": key, "mask": mask}],
           "action_entry": {"action_id": 0, "action_data": [data]}, "priority": prio})
}

fn with_c(c: u16) -> [u8; 10] {
    let mut p = PKT;
    p[2..4].copy_from_slice(&c.to_be_bytes());
    p
}

#[test]
fn ternary_entries_with_value_bits_outside_the_mask_and_priorities() {
    // p4c keeps `0x1111 &&& 0x000f` unmasked; BMv2 masks it. Its priorities:
    // the smallest number wins.
    let v = entries_prog("ternary", json!([
        ternary_entry("0x1111", "0x000f", "0x01", 3),
        ternary_entry("0x1181", "0xffff", "0x02", 2),
        ternary_entry("0x1181", "0xf00f", "0x03", 1),
    ]));
    let sw = switch(&v);
    assert_eq!(send(&sw, 0, &with_c(0x0001))[0].1[0], 0x01, "only the masked 0x0001/0x000f entry matches");
    assert_eq!(send(&sw, 0, &with_c(0x1181))[0].1[0], 0x03, "all three match: priority 1 wins");
    assert_eq!(send(&sw, 0, &with_c(0x1001))[0].1[0], 0x03, "entries 1 and 3 match: priority 1 wins");
    assert_eq!(send(&sw, 0, &with_c(0x0002))[0].1[1], 0xee, "miss");
    let rd = sw.table_read("t").unwrap();
    assert!(rd.iter().any(|e| e.entry.key == vec![MatchKey::Ternary(vec![0x00, 0x01], vec![0x00, 0x0f])]), "{rd:?}");

    // BMv2 refuses two entries with the same masked key and priority
    let dup = entries_prog("ternary", json!([
        ternary_entry("0x1111", "0x000f", "0x01", 1),
        ternary_entry("0x0001", "0x000f", "0x02", 1),
    ]));
    let e = load_program(&dup.to_string()).unwrap_err();
    assert_eq!(e.path, "pipelines[0].tables[0].entries[1]");
}

#[test]
fn lpm_entries_with_value_bits_past_the_prefix() {
    let lpm = |key: &str, plen: u32, data: &str, prio: i64| {
        json!({"match_key": [{"match_type": "lpm", "key": key, "prefix_length": plen}],
               "action_entry": {"action_id": 0, "action_data": [data]}, "priority": prio})
    };
    let v = entries_prog("lpm", json!([
        lpm("0x1111", 4, "0x0b", 1),
        lpm("0x1200", 8, "0x0c", 2),
        lpm("0x0000", 0, "0x0d", 3),
    ]));
    let sw = switch(&v);
    assert_eq!(send(&sw, 0, &with_c(0x1f00))[0].1[0], 0x0b, "0x1111/4 matches as 0x1000/4");
    assert_eq!(send(&sw, 0, &with_c(0x12ab))[0].1[0], 0x0c, "longest prefix wins");
    assert_eq!(send(&sw, 0, &with_c(0x2200))[0].1[0], 0x0d, "default route");

    let bad = entries_prog("lpm", json!([lpm("0x1111", 17, "0x0b", 1)]));
    let e = load_program(&bad.to_string()).unwrap_err();
    assert_eq!(e.path, "pipelines[0].tables[0].entries[0].match_key[0].prefix_length");
}

#[test]
fn action_profile_members_resolve_actions_in_the_tables_that_use_the_profile() {
    // p4c writes one action per control with the same name (NoAction twice
    // here); a shared profile's member names an action of either table.
    let mut v = base();
    v["actions"] = json!([
        action("NoAction", 0, &[], vec![]),
        action("NoAction", 1, &[], vec![]),
        action("set_a", 2, &[("v", 8)], vec![assign(f("h", "a"), rd(0))]),
        action("set_b", 3, &[("v", 8)], vec![assign(f("h", "b"), rd(0)), assign(f("standard_metadata", "egress_spec"), hx("0x0003"))]),
    ]);
    let table = |name: &str, id: u32, key: &str, ids: Value, names: Value, next: Value| {
        json!({"name": name, "id": id, "key": [{"match_type": "exact", "target": ["h", key], "mask": null}],
            "match_type": "exact", "type": "indirect", "action_profile": "prof", "max_size": 16, "with_counters": false,
            "support_timeout": false, "direct_meters": null, "action_ids": ids, "actions": names,
            "base_default_next": next, "next_tables": {names[0].as_str().unwrap(): next, names[1].as_str().unwrap(): next}})
    };
    v["pipelines"][0]["action_profiles"] = json!([{"name": "prof", "id": 0, "max_size": 16}]);
    v["pipelines"][0]["tables"] = json!([
        table("t1", 0, "a", json!([0, 2]), json!(["NoAction", "set_a"]), json!("t2")),
        table("t2", 1, "b", json!([1, 3]), json!(["NoAction", "set_b"]), Value::Null),
    ]);
    v["pipelines"][0]["init_table"] = json!("t1");
    let sw = switch(&v);
    let member = |id: u32, a: &str, params: Vec<Vec<u8>>| Member { member_id: id, action: ActionSpec { action: a.into(), params } };
    sw.member_add("prof", member(1, "set_b", vec![vec![0x5b]])).unwrap();
    sw.member_add("prof", member(2, "set_a", vec![vec![0x5a]])).unwrap();
    sw.member_add("prof", member(3, "NoAction", vec![])).unwrap();
    let add = |t: &str, k: u8, m: u32| {
        sw.table_insert(t, TableEntry { key: vec![MatchKey::Exact(vec![k])], action: EntryAction::Member(m), priority: 0, idle_timeout_ns: 0 })
    };
    add("t1", 0x11, 2).unwrap();
    add("t2", 0x22, 1).unwrap();
    let out = send(&sw, 0, &PKT);
    assert_eq!(out, vec![(3, [&[0x5a, 0x5b][..], &PKT[2..]].concat())]);
    assert!(sw.member_add("prof", member(4, "set_c", vec![])).is_err(), "an action of no table is refused");
}

#[test]
fn log_msg_with_an_empty_parameters_vector() {
    // p4c writes `log_msg("text")` with an empty vector as {} (jsoncpp's empty value)
    let v = one_action(vec![prim("log_msg", vec![
        json!({"type": "string", "value": "no arguments"}),
        json!({"type": "parameters_vector", "value": {}}),
    ])]);
    assert_eq!(send(&switch(&v), 0, &PKT), vec![(1, PKT.to_vec())]);
}

// ----- what BMv2 refuses, p4switch refuses too ---------------------------------

/// The load error of `v` as (path, reason).
fn refusal(v: &Value) -> (String, String) {
    let e = load_program(&v.to_string()).err().expect("BMv2 refuses this program, so must p4switch");
    (e.path, e.reason)
}

/// `one_action` with `prims` written as given (no re-wrapping by `prim`).
fn raw_action(prims: Vec<Value>) -> Value {
    let mut v = one_action(vec![]);
    v["actions"][0]["runtime_data"] = json!([{"name": "p", "bitwidth": 8}]);
    v["pipelines"][0]["tables"][0]["default_entry"]["action_data"] = json!(["0x05"]);
    v["actions"][0]["primitives"].as_array_mut().unwrap().extend(prims);
    v
}

#[test]
fn expression_parameter_wrapped_once_is_refused_unless_lax() {
    let once = json!({"op": "assign", "parameters": [f("h", "a"), ex("+", f("h", "a"), hx("0x01"))]});
    let v = raw_action(vec![once]);
    let (path, reason) = refusal(&v);
    assert_eq!(path, "actions[0].primitives[1].parameters[1].value");
    assert!(reason.contains("invalid 'type' in expression: ''"), "{reason}");
    // the engine itself runs it: older p4compile output loads with bmv2_shapes off
    let lax = load_program_with(&v.to_string(), LoadOptions { bmv2_shapes: false }).unwrap();
    let sw = Switch::new(SwitchConfig::default());
    sw.set_program(lax);
    assert_eq!(send(&sw, 0, &PKT)[0].1[0], 0x12);
}

#[test]
fn runtime_data_inside_an_expression_is_refused() {
    let v = raw_action(vec![json!({"op": "assign", "parameters": [f("h", "a"), pexpr(json!({"op": "+", "left": f("h", "a"), "right": rd(0)}))]})]);
    let (path, reason) = refusal(&v);
    assert_eq!(path, "actions[0].primitives[1].parameters[1].value.value.right");
    assert!(reason.contains("\"local\""), "{reason}");
    // p4c's shape loads
    let ok = raw_action(vec![json!({"op": "assign", "parameters": [f("h", "a"),
        pexpr(json!({"op": "+", "left": f("h", "a"), "right": {"type": "local", "value": 0}}))]})]);
    load_program(&ok.to_string()).unwrap();
}

#[test]
fn clone_and_resubmit_need_their_field_list() {
    let clone = json!({"op": "clone_ingress_pkt_to_egress", "parameters": [hx("0x1"), hx("0x7")]});
    let (path, reason) = refusal(&raw_action(vec![clone.clone()]));
    assert_eq!(path, "actions[0].primitives[1].parameters[1]");
    assert!(reason.starts_with("field list id 7 has no entry"), "{reason}");
    let mut ok = raw_action(vec![clone]);
    ok["field_lists"] = json!([{"id": 7, "name": "empty", "elements": []}]);
    load_program(&ok.to_string()).unwrap();
    let (path, _) = refusal(&raw_action(vec![json!({"op": "resubmit", "parameters": [hx("0x0")]})]));
    assert_eq!(path, "actions[0].primitives[1].parameters[0]");
}

#[test]
fn primitive_parameter_counts_are_bmv2s() {
    let (path, reason) = refusal(&raw_action(vec![json!({"op": "clone_ingress_pkt_to_egress", "parameters": [hx("0x1")]})]));
    assert_eq!(path, "actions[0].primitives[1]");
    assert_eq!(reason, "BMv2 refuses primitive \"clone_ingress_pkt_to_egress\" with 1 parameters: it takes 2");
}

#[test]
fn assert_condition_must_be_wrapped_in_b2d() {
    let cond = ex("==", f("h", "a"), hx("0x11"));
    let (path, reason) = refusal(&raw_action(vec![json!({"op": "assert", "parameters": [pexpr(cond["value"].clone())]})]));
    assert_eq!(path, "actions[0].primitives[1].parameters[0]");
    assert!(reason.contains("b2d"), "{reason}");
    let ok = raw_action(vec![json!({"op": "assert", "parameters": [pexpr(json!({"op": "b2d", "left": null, "right": cond}))]})]);
    assert_eq!(send(&switch(&ok), 0, &PKT).len(), 1, "h.a == 0x11 holds");
}

#[test]
fn parser_shapes_bmv2_refuses() {
    let mut v = one_action(vec![]);
    let ops = |v: &mut Value, op: Value| v["parsers"][0]["parse_states"][0]["parser_ops"] = json!([op]);
    // lookahead is no expression type for BMv2 (p4c sets a temporary first)
    ops(&mut v, json!({"op": "set", "parameters": [f("scalars", "m8"),
        {"type": "expression", "value": ex("+", json!({"type": "lookahead", "value": [0, 8]}), hx("0x1"))}]}));
    let (path, reason) = refusal(&v);
    assert_eq!(path, "parsers[0].parse_states[0].parser_ops[0].parameters[1].value.value.left");
    assert!(reason.contains("'lookahead'"), "{reason}");
    ops(&mut v, json!({"op": "set", "parameters": [f("scalars", "m8"), {"type": "stack_field", "value": ["st", "a"]}]}));
    let (path, reason) = refusal(&v);
    assert_eq!(path, "parsers[0].parse_states[0].parser_ops[0].parameters[1].type");
    assert_eq!(reason, "BMv2 refuses a parser 'set' from type 'stack_field'");
    ops(&mut v, json!({"op": "verify", "parameters": [
        {"op": "==", "left": f("h", "a"), "right": hx("0x1")}, hx("0x1")]}));
    assert_eq!(refusal(&v).0, "parsers[0].parse_states[0].parser_ops[0].parameters[0]");
}

#[test]
fn entries_must_fit_the_table() {
    let v = entries_prog("ternary", json!([
        {"match_key": [{"match_type": "exact", "key": "0x0001"}], "action_entry": {"action_id": 0, "action_data": ["0x01"]}, "priority": 1}]));
    let (path, reason) = refusal(&v);
    assert_eq!(path, "pipelines[0].tables[0].entries[0].match_key[0].match_type");
    assert_eq!(reason, "\"exact\" entry for the Ternary key field \"h.c\"");
    let mut v = entries_prog("exact", json!([
        {"match_key": [{"match_type": "exact", "key": "0x0001"}], "action_entry": {"action_id": 0, "action_data": ["0x01"]}, "priority": 1}]));
    v["pipelines"][0]["tables"][0]["type"] = json!("indirect");
    v["pipelines"][0]["tables"][0]["action_profile"] = json!("prof");
    v["pipelines"][0]["action_profiles"] = json!([{"name": "prof", "id": 0, "max_size": 16}]);
    assert_eq!(refusal(&v).0, "pipelines[0].tables[0].entries");
}

#[test]
fn older_2x_parser_shapes_bmv2_still_reads() {
    // shift by a plain integer of bytes, verify with a plain error code, a
    // transition {"value": "default"} without a type
    let mut v = one_action(vec![
        prim("add_header", vec![json!({"type": "header", "value": "h2"})]),
        assign(f("h2", "d"), f("standard_metadata", "parser_error")),
    ]);
    v["parsers"][0]["parse_states"][0] = json!({"name": "start", "id": 0, "parser_ops": [
            {"op": "shift", "parameters": [2]},
            {"op": "extract", "parameters": [{"type": "regular", "value": "h"}]},
            {"op": "verify", "parameters": [ex("!=", f("h", "a"), hx("0x77")), 4]}],
        "transition_key": [], "transitions": [{"value": "default", "mask": null, "next_state": null}]});
    let sw = switch(&v);
    let out = send(&sw, 0, &PKT);
    assert_eq!(out, vec![(1, [&PKT[2..], &[0, 0, 0, 0, 0, 0, 0, 0][..]].concat())], "two bytes skipped, h parsed");
    let mut p = PKT;
    p[2] = 0x77;
    assert_eq!(send(&sw, 0, &p)[0].1[15], 4, "verify failed with error code 4");
}

#[test]
fn select_without_default_and_no_matching_case_accepts() {
    // p4c writes `transition select(h.a) { 0x99: accept; }` with no default
    // transition; BMv2 then ends the parse, accepted with parser_error NoError
    // (its default next state is none), where the spec would reject (NoMatch).
    let mut v = one_action(vec![
        prim("add_header", vec![json!({"type": "header", "value": "h2"})]),
        assign(f("h2", "d"), f("standard_metadata", "parser_error")),
    ]);
    v["parsers"][0]["parse_states"][0]["transition_key"] = json!([{"type": "field", "value": ["h", "a"]}]);
    v["parsers"][0]["parse_states"][0]["transitions"] =
        json!([{"type": "hexstr", "value": "0x99", "mask": null, "next_state": null}]);
    let out = send(&switch(&v), 0, &PKT);
    let want = [&PKT[..8], &[0u8; 8][..], &PKT[8..]].concat();
    assert_eq!(out, vec![(1, want)], "h extracted, ingress ran, parser_error = NoError (0)");
}

#[test]
fn calculation_constant_must_have_the_bitwidths_bytes() {
    // p4c writes a constant hash input as {"type": "hexstr", "value": "0x0001", "bitwidth": 16};
    // BMv2 copies 16 bits from the string's bytes, so "0x1" would be read past its end.
    let calc = |hex: &str| {
        let mut v = one_action(vec![prim("modify_field_with_hash_based_offset", vec![
            f("h", "c"), hx("0x0000"), json!({"type": "calculation", "value": "calc"}), hx("0x0004")])]);
        v["calculations"] = json!([{"name": "calc", "id": 0, "algo": "crc16",
                                    "input": [{"type": "hexstr", "value": hex, "bitwidth": 16}]}]);
        v
    };
    assert!(load_program(&calc("0x0001").to_string()).is_ok());
    let e = load_program(&calc("0x1").to_string()).unwrap_err();
    assert_eq!(e.path, "calculations[0].input[0].value");
    assert!(e.to_string().contains("2 byte(s) of a 16-bit constant"), "{e}");
}
