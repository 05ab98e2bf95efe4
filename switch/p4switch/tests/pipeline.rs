//! The real `p4switch` binary on pcap-file ports running small BMv2 JSON
//! programs (in p4c's shape); every test checks the output bytes exactly and
//! that no other port sent anything.

mod common;

use common::*;
use serde_json::json;

const ETH_IPV4: u16 = 0x0800;

fn l2_prog() -> Prog {
    let mut p = Prog::new();
    p.action("MyIngress.forward", &[("port", 9)], vec![assign(fld("standard_metadata", "egress_spec"), rd(0))]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    p
}

#[test]
fn egress_spec_never_set_sends_to_port_0() {
    let p = Prog::new();
    let f = eth(mac(2), mac(1), 0x1234, b"hello");
    let out = run("port0", &p.j, &[0, 1], &[(1, f.clone())]);
    expect(&out, &[(0, vec![f])]);
}

#[test]
fn exact_const_entries_forward_and_the_default_drops() {
    let mut p = l2_prog();
    p.table(
        0,
        "MyIngress.dmac",
        &[("exact", "ethernet", "dstAddr")],
        &["MyIngress.forward", "MyIngress.drop"],
        ("MyIngress.drop", vec![], true),
        vec![
            (json!([{"match_type": "exact", "key": "0x000000000001"}]), "MyIngress.forward", vec!["0x0002"], 1),
            (json!([{"match_type": "exact", "key": "0x000000000002"}]), "MyIngress.forward", vec!["0x0003"], 2),
        ],
        json!({"MyIngress.forward": null, "MyIngress.drop": null}),
        None,
    );
    p.init(0, "MyIngress.dmac");
    let to1 = eth(mac(1), mac(9), 0x0800, b"a");
    let to2 = eth(mac(2), mac(9), 0x0800, b"b");
    let to3 = eth(mac(3), mac(9), 0x0800, b"c");
    let out = run("exact", &p.j, &[1, 2, 3], &[(1, to1.clone()), (1, to2.clone()), (1, to3)]);
    expect(&out, &[(2, vec![to1]), (3, vec![to2])]);
}

#[test]
fn the_drop_port_drops_and_is_configurable() {
    let mut p = Prog::new();
    p.action("MyIngress.to100", &[], vec![set_port(100)]);
    p.keyless(0, "MyIngress.t", "MyIngress.to100", vec![], None);
    p.init(0, "MyIngress.t");
    let f = eth(mac(2), mac(1), 0x0800, b"x");
    let out = run("dropport-default", &p.j, &[1, 100], &[(1, f.clone())]);
    expect(&out, &[(100, vec![f.clone()])]);
    let r = run_with("dropport-100", &p.j, &[1, 100], &[(1, f)], &["--", "--drop-port", "100"]);
    assert!(r.status.success(), "{}", r.stderr);
    expect(&r.out, &[]);
}

/// Ethernet + IPv4 router: LPM on the destination, next hop MAC rewrite, TTL
/// decrement, IPv4 checksum verified after parsing and recomputed before deparsing.
fn router() -> Prog {
    let mut p = Prog::new();
    p.header_type(
        "ipv4_t",
        &[
            ("version", 4), ("ihl", 4), ("diffserv", 8), ("totalLen", 16), ("identification", 16),
            ("flags", 3), ("fragOffset", 13), ("ttl", 8), ("protocol", 8), ("hdrChecksum", 16),
            ("srcAddr", 32), ("dstAddr", 32),
        ],
    );
    p.header("ipv4", "ipv4_t", false);
    p.parse_states(vec![
        state("start", 0, vec![extract("ethernet")], vec![fld("ethernet", "etherType")],
              vec![(Some("0x0800"), None, Some("parse_ipv4")), (None, None, None)]),
        state("parse_ipv4", 1, vec![extract("ipv4")], vec![], vec![(None, None, None)]),
    ]);
    p.deparser(&["ethernet", "ipv4"]);
    let fields = ["version", "ihl", "diffserv", "totalLen", "identification", "flags", "fragOffset", "ttl",
                  "protocol", "srcAddr", "dstAddr"];
    let input: Vec<_> = fields.iter().map(|f| fld("ipv4", f)).collect();
    p.j["calculations"] = json!([
        {"name": "calc", "id": 0, "algo": "csum16", "input": input.clone()},
        {"name": "calc_0", "id": 1, "algo": "csum16", "input": input}
    ]);
    p.j["checksums"] = json!([
        {"name": "cksum", "id": 0, "target": ["ipv4", "hdrChecksum"], "type": "generic", "calculation": "calc",
         "verify": true, "update": false, "if_cond": is_valid("ipv4")},
        {"name": "cksum_0", "id": 1, "target": ["ipv4", "hdrChecksum"], "type": "generic", "calculation": "calc_0",
         "verify": false, "update": true, "if_cond": is_valid("ipv4")}
    ]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    p.action(
        "MyIngress.set_nhop",
        &[("dmac", 48), ("port", 9)],
        vec![
            assign(fld("ethernet", "srcAddr"), fld("ethernet", "dstAddr")),
            assign(fld("ethernet", "dstAddr"), rd(0)),
            assign(fld("standard_metadata", "egress_spec"), rd(1)),
            assign(fld("ipv4", "ttl"), add_w(fld("ipv4", "ttl"), hexv("0xff"), 8)),
        ],
    );
    p.conditional(0, "node_2", is_valid("ipv4"), Some("node_3"), None);
    p.conditional(
        0,
        "node_3",
        ex("==", fld("standard_metadata", "checksum_error"), hexv("0x01")),
        Some("MyIngress.bad_cksum"),
        Some("MyIngress.ipv4_lpm"),
    );
    p.keyless(0, "MyIngress.bad_cksum", "MyIngress.drop", vec![], None);
    p.table(
        0,
        "MyIngress.ipv4_lpm",
        &[("lpm", "ipv4", "dstAddr")],
        &["MyIngress.set_nhop", "MyIngress.drop"],
        ("MyIngress.drop", vec![], false),
        vec![
            (json!([{"match_type": "lpm", "key": "0x0a000000", "prefix_length": 8}]), "MyIngress.set_nhop",
             vec!["0x0000000000a2", "0x0002"], 1),
            (json!([{"match_type": "lpm", "key": "0x0a010000", "prefix_length": 16}]), "MyIngress.set_nhop",
             vec!["0x0000000000a3", "0x0003"], 2),
        ],
        json!({"MyIngress.set_nhop": null, "MyIngress.drop": null}),
        None,
    );
    p.init(0, "node_2");
    p
}

#[test]
fn router_lpm_ttl_and_checksums() {
    let p = router();
    let payload = b"0123456789abcdef";
    let pkt = |dst: [u8; 4], ttl: u8| eth(mac(0xee), mac(0x11), ETH_IPV4, &ipv4([192, 168, 0, 1], dst, ttl, payload));
    let routed = |dst: [u8; 4], ttl: u8, dmac: u8| eth(mac(dmac), mac(0xee), ETH_IPV4, &ipv4([192, 168, 0, 1], dst, ttl, payload));
    let mut bad = pkt([10, 1, 2, 3], 64);
    bad[24] ^= 0xff; // corrupt the IPv4 checksum
    let arp = eth(mac(0xff), mac(0x11), 0x0806, b"not ip");
    let out = run(
        "router",
        &p.j,
        &[1, 2, 3],
        &[(1, pkt([10, 1, 2, 3], 64)), (1, pkt([10, 9, 9, 9], 17)), (1, pkt([11, 0, 0, 1], 64)), (1, bad), (1, arp.clone())],
    );
    expect(
        &out,
        &[(3, vec![routed([10, 1, 2, 3], 63, 0xa3)]), (2, vec![routed([10, 9, 9, 9], 16, 0xa2)]), (0, vec![arp])],
    );
}

#[test]
fn ternary_and_range_entries_follow_priority() {
    let mut p = l2_prog();
    p.table(
        0,
        "MyIngress.acl",
        &[("ternary", "ethernet", "dstAddr"), ("range", "ethernet", "etherType")],
        &["MyIngress.forward", "MyIngress.drop"],
        ("MyIngress.drop", vec![], false),
        vec![
            (json!([{"match_type": "ternary", "key": "0x0000000000aa", "mask": "0x0000000000ff"},
                    {"match_type": "range", "start": "0x0800", "end": "0x08ff"}]),
             "MyIngress.forward", vec!["0x0002"], 1),
            (json!([{"match_type": "ternary", "key": "0x000000000000", "mask": "0x000000000000"},
                    {"match_type": "range", "start": "0x0000", "end": "0xffff"}]),
             "MyIngress.forward", vec!["0x0003"], 2),
            // Shadowed by the entry above (which has the lower, winning priority value).
            (json!([{"match_type": "ternary", "key": "0x0000000000bb", "mask": "0x0000000000ff"},
                    {"match_type": "range", "start": "0x0000", "end": "0xffff"}]),
             "MyIngress.drop", vec![], 3),
        ],
        json!({"MyIngress.forward": null, "MyIngress.drop": null}),
        None,
    );
    p.init(0, "MyIngress.acl");
    let a = eth(mac(0xaa), mac(1), 0x0800, b"1");
    let a_arp = eth(mac(0xaa), mac(1), 0x0906, b"2");
    let b = eth(mac(0xbb), mac(1), 0x0800, b"3");
    let out = run("ternary", &p.j, &[1, 2, 3], &[(1, a.clone()), (1, a_arp.clone()), (1, b.clone())]);
    expect(&out, &[(2, vec![a]), (3, vec![a_arp, b])]);
}

#[test]
fn hit_and_miss_branches() {
    let mut p = l2_prog();
    p.table(
        0,
        "MyIngress.known",
        &[("exact", "ethernet", "etherType")],
        &["NoAction"],
        ("NoAction", vec![], false),
        vec![(json!([{"match_type": "exact", "key": "0x0800"}]), "NoAction", vec![], 1)],
        json!({"__HIT__": "MyIngress.on_hit", "__MISS__": "MyIngress.on_miss"}),
        None,
    );
    p.keyless(0, "MyIngress.on_hit", "MyIngress.forward", vec!["0x0002"], None);
    p.keyless(0, "MyIngress.on_miss", "MyIngress.forward", vec!["0x0003"], None);
    p.init(0, "MyIngress.known");
    let ip = eth(mac(1), mac(2), 0x0800, b"");
    let other = eth(mac(1), mac(2), 0x86dd, b"");
    let out = run("hitmiss", &p.j, &[1, 2, 3], &[(1, ip.clone()), (1, other.clone())]);
    expect(&out, &[(2, vec![ip]), (3, vec![other])]);
}

#[test]
fn arithmetic_wraps_at_the_field_width_including_wide_fields() {
    let mut p = Prog::new();
    p.header_type("num_t", &[("a", 8), ("b", 16), ("wide", 128), ("c", 8)]);
    p.header("num", "num_t", false);
    p.parse_states(vec![state("start", 0, vec![extract("ethernet"), extract("num")], vec![], vec![(None, None, None)])]);
    p.deparser(&["ethernet", "num"]);
    p.action(
        "MyIngress.compute",
        &[],
        vec![
            // a = a - 0x10 (wraps below zero)
            assign(fld("num", "a"), ex("&", ex("-", fld("num", "a"), hexv("0x10")), hexv("0xff"))),
            // b = b * 3
            assign(fld("num", "b"), ex("&", ex("*", fld("num", "b"), hexv("0x0003")), hexv("0xffff"))),
            // wide = wide + 1 (128-bit carry chain and wrap)
            assign(fld("num", "wide"), add_w(fld("num", "wide"), hexv("0x01"), 128)),
            // c = (c << 4) | (c >> 4)
            assign(
                fld("num", "c"),
                ex("|", ex("&", ex("<<", fld("num", "c"), hexv("0x04")), hexv("0xff")), ex(">>", fld("num", "c"), hexv("0x04"))),
            ),
            set_port(2),
        ],
    );
    p.keyless(0, "MyIngress.t", "MyIngress.compute", vec![], None);
    p.init(0, "MyIngress.t");
    let mut payload = vec![0x05, 0x60, 0x01];
    payload.extend_from_slice(&[0xff; 16]);
    payload.push(0x12);
    let mut want = vec![0xf5, 0x20, 0x03];
    want.extend_from_slice(&[0x00; 16]);
    want.push(0x21);
    let inp = eth(mac(1), mac(2), 0x9999, &payload);
    let out = run("arith", &p.j, &[1, 2], &[(1, inp)]);
    expect(&out, &[(2, vec![eth(mac(1), mac(2), 0x9999, &want)])]);

    // The wide field without overflow: 0x00..01_ffffffffffffffff + 1 carries into the upper half.
    let mut payload2 = vec![0, 0, 0];
    payload2.extend_from_slice(&hx("0000000000000001 ffffffffffffffff"));
    payload2.push(0);
    let mut want2 = vec![0xf0, 0, 0];
    want2.extend_from_slice(&hx("0000000000000002 0000000000000000"));
    want2.push(0);
    let out = run("arith2", &p.j, &[1, 2], &[(1, eth(mac(1), mac(2), 0x9999, &payload2))]);
    expect(&out, &[(2, vec![eth(mac(1), mac(2), 0x9999, &want2)])]);
}

#[test]
fn resubmit_restarts_ingress_with_instance_type_6() {
    let mut p = Prog::new();
    // BMv2 takes a field list id (p4c writes an empty list)
    p.action("MyIngress.do_resubmit", &[], vec![prim("resubmit", vec![hexv("0x1")])]);
    p.j["field_lists"] = serde_json::json!([{"id": 1, "name": "empty", "elements": []}]);
    p.action(
        "MyIngress.mark",
        &[],
        vec![
            assign(fld("ethernet", "etherType"), ex("&", fld("standard_metadata", "instance_type"), hexv("0xffff"))),
            set_port(2),
        ],
    );
    p.conditional(0, "node_1", ex("==", fld("standard_metadata", "instance_type"), hexv("0x00000000")),
                  Some("MyIngress.first"), Some("MyIngress.second"));
    p.keyless(0, "MyIngress.first", "MyIngress.do_resubmit", vec![], None);
    p.keyless(0, "MyIngress.second", "MyIngress.mark", vec![], None);
    p.init(0, "node_1");
    let f = eth(mac(1), mac(2), 0x0800, b"resubmit me");
    let out = run("resubmit", &p.j, &[0, 1, 2], &[(1, f)]);
    expect(&out, &[(2, vec![eth(mac(1), mac(2), 0x0006, b"resubmit me")])]);
}

#[test]
fn recirculate_reenters_ingress_with_the_deparsed_packet() {
    let mut p = Prog::new();
    p.action(
        "MyIngress.mark",
        &[],
        vec![
            assign(fld("ethernet", "srcAddr"), ex("&", ex("+", fld("ethernet", "srcAddr"), hexv("0x01")), hexv("0xffffffffffff"))),
            assign(fld("ethernet", "etherType"), ex("&", fld("standard_metadata", "instance_type"), hexv("0xffff"))),
            set_port(3),
        ],
    );
    p.keyless(0, "MyIngress.t", "MyIngress.mark", vec![], None);
    p.init(0, "MyIngress.t");
    p.action("MyEgress.do_recirculate", &[], vec![prim("recirculate", vec![hexv("0x1")])]);
    p.j["field_lists"] = serde_json::json!([{"id": 1, "name": "empty", "elements": []}]);
    // simple_switch resets instance_type to 0 before unicast egress, also after a
    // recirculation, so egress recognises the first pass by the rewritten srcAddr.
    p.conditional(1, "node_e", ex("==", fld("ethernet", "srcAddr"), hexv("0x000000000011")),
                  Some("MyEgress.again"), None);
    p.keyless(1, "MyEgress.again", "MyEgress.do_recirculate", vec![], None);
    p.init(1, "node_e");
    let f = eth(mac(1), mac(0x10), 0x0800, b"loop");
    let out = run("recirculate", &p.j, &[0, 1, 3], &[(1, f)]);
    // Two passes through ingress: srcAddr +2, etherType = 4 (recirculated).
    expect(&out, &[(3, vec![eth(mac(1), mac(0x12), 0x0004, b"loop")])]);
}

#[test]
fn header_stack_pop_and_header_removal() {
    let mut p = Prog::new();
    p.header_type("vlan_t", &[("pcp", 3), ("dei", 1), ("vid", 12), ("etherType", 16)]);
    p.header("vlan[0]", "vlan_t", false);
    p.header("vlan[1]", "vlan_t", false);
    p.j["header_stacks"] = json!([{"name": "vlan", "id": 0, "header_type": "vlan_t", "size": 2, "header_ids": [3, 4]}]);
    p.parse_states(vec![
        state("start", 0, vec![extract("ethernet")], vec![fld("ethernet", "etherType")],
              vec![(Some("0x8100"), None, Some("tag0")), (None, None, None)]),
        state("tag0", 1, vec![extract("vlan[0]")], vec![fld("vlan[0]", "etherType")],
              vec![(Some("0x8100"), None, Some("tag1")), (None, None, None)]),
        state("tag1", 2, vec![extract("vlan[1]")], vec![], vec![(None, None, None)]),
    ]);
    p.deparser(&["ethernet", "vlan[0]", "vlan[1]"]);
    // Double-tagged: pop the outer tag. Single-tagged: remove the tag and restore the type.
    p.action(
        "MyIngress.pop_outer",
        &[],
        vec![prim("pop", vec![json!({"type": "header_stack", "value": "vlan"}), hexv("0x01")]), set_port(2)],
    );
    p.action(
        "MyIngress.untag",
        &[],
        vec![
            assign(fld("ethernet", "etherType"), fld("vlan[0]", "etherType")),
            prim("remove_header", vec![json!({"type": "header", "value": "vlan[0]"})]),
            set_port(3),
        ],
    );
    p.conditional(0, "node_1", is_valid("vlan[1]"), Some("MyIngress.t_pop"), Some("node_2"));
    p.conditional(0, "node_2", is_valid("vlan[0]"), Some("MyIngress.t_untag"), None);
    p.keyless(0, "MyIngress.t_pop", "MyIngress.pop_outer", vec![], None);
    p.keyless(0, "MyIngress.t_untag", "MyIngress.untag", vec![], None);
    p.init(0, "node_1");
    let double = eth(mac(1), mac(2), 0x8100, &hx("0064 8100 00c8 0800 aabbccdd"));
    let single = eth(mac(1), mac(2), 0x8100, &hx("0064 0800 aabbccdd"));
    let out = run("stack", &p.j, &[0, 1, 2, 3], &[(1, double.clone()), (1, single.clone())]);
    // The outer tag's 4 bytes are gone; the frame was padded to 60 so the tail stays.
    let mut popped = double[..14].to_vec();
    popped.extend_from_slice(&double[18..]);
    let mut untagged = single[..12].to_vec();
    untagged.extend_from_slice(&[0x08, 0x00]);
    untagged.extend_from_slice(&single[18..]);
    expect(&out, &[(2, vec![popped]), (3, vec![untagged])]);
}

#[test]
fn short_and_malformed_frames_do_not_stop_the_switch() {
    let p = router();
    let good = eth(mac(0xee), mac(0x11), ETH_IPV4, &ipv4([1, 1, 1, 1], [10, 0, 0, 1], 9, b"ok"));
    let mut packets: Vec<(u32, Vec<u8>)> = Vec::new();
    for n in 0..good.len() {
        packets.push((1, good[..n].to_vec()));
    }
    packets.push((1, good.clone()));
    let r = run_with("malformed", &p.j, &[0, 1, 2, 3], &packets, &[]);
    assert!(r.status.success(), "{}", r.stderr);
    // The complete packet is routed normally after all the truncated ones.
    let routed = eth(mac(0xa2), mac(0xee), ETH_IPV4, &ipv4([1, 1, 1, 1], [10, 0, 0, 1], 8, b"ok"));
    assert_eq!(r.out[&2].last(), Some(&routed));
}
