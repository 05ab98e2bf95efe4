//! The `tables` test program (tests/fixtures/tables.json) and its P4Info, the
//! same as tests/fixtures/tables.p4info.txtpb, for the Rust tests and the
//! benchmark: `t_exact` (exact bit<48>, idle timeout), `t_lpm` (lpm bit<48>),
//! `t_tern` (ternary bit<16>, direct counter, const default `drop`).

#![allow(dead_code)]

use p4runtime_server::proto::p4::config::v1 as cfg;

pub const JSON: &str = include_str!("../fixtures/tables.json");

pub const T_EXACT: u32 = 37375156;
pub const T_LPM: u32 = 44506256;
pub const T_TERN: u32 = 41243186;
pub const A_NOACTION: u32 = 21257015;
pub const A_SET_PORT: u32 = 24742814;
pub const A_DROP: u32 = 25652968;
pub const C_TERN: u32 = 323875227;

fn pre(id: u32, name: &str) -> Option<cfg::Preamble> {
    Some(cfg::Preamble { id, name: name.into(), ..Default::default() })
}

fn table(id: u32, name: &str, field: &str, bw: i32, kind: cfg::match_field::MatchType) -> cfg::Table {
    cfg::Table {
        preamble: pre(id, name),
        match_fields: vec![cfg::MatchField {
            id: 1,
            name: field.into(),
            bitwidth: bw,
            r#match: Some(cfg::match_field::Match::MatchType(kind as i32)),
            ..Default::default()
        }],
        action_refs: [A_SET_PORT, A_DROP, A_NOACTION]
            .iter()
            .map(|&id| cfg::ActionRef { id, ..Default::default() })
            .collect(),
        size: 1048576,
        ..Default::default()
    }
}

pub fn p4info() -> cfg::P4Info {
    use cfg::match_field::MatchType as M;
    let mut t_exact = table(T_EXACT, "MyIngress.t_exact", "hdr.ethernet.dstAddr", 48, M::Exact);
    t_exact.idle_timeout_behavior = cfg::table::IdleTimeoutBehavior::NotifyControl as i32;
    let t_lpm = table(T_LPM, "MyIngress.t_lpm", "hdr.ethernet.srcAddr", 48, M::Lpm);
    let mut t_tern = table(T_TERN, "MyIngress.t_tern", "hdr.ethernet.etherType", 16, M::Ternary);
    t_tern.const_default_action_id = A_DROP;
    t_tern.direct_resource_ids = vec![C_TERN];
    t_tern.size = 1024;
    cfg::P4Info {
        tables: vec![t_exact, t_lpm, t_tern],
        actions: vec![
            cfg::Action { preamble: pre(A_NOACTION, "NoAction"), params: vec![] },
            cfg::Action {
                preamble: pre(A_SET_PORT, "MyIngress.set_port"),
                params: vec![cfg::action::Param { id: 1, name: "port".into(), bitwidth: 9, ..Default::default() }],
            },
            cfg::Action { preamble: pre(A_DROP, "MyIngress.drop"), params: vec![] },
        ],
        direct_counters: vec![cfg::DirectCounter {
            preamble: pre(C_TERN, "MyIngress.t_tern_counter"),
            spec: Some(cfg::CounterSpec { unit: cfg::counter_spec::Unit::Both as i32 }),
            direct_table_id: T_TERN,
        }],
        ..Default::default()
    }
}
