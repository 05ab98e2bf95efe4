//! The `tables` test program (tests/fixtures/tables.json) and its P4Info, the
//! same as tests/fixtures/tables.p4info.txtpb, for the Rust tests and the
//! benchmark: `t_exact` (exact bit<48>, idle timeout; actions also `learn`
//! = digest `digest_t` and `to_cpu` = port 64), `t_lpm` (lpm bit<48>, direct
//! meter), `t_tern` (ternary bit<16>, direct counter, const default `NoAction`),
//! `t_sel` (action selector `ap`), `t_const` (const entry 0x0800); counter
//! `pkts`[16], meter `policer`[8] (bytes), register `reg`[8] bit<32>, parser
//! value set `pvs` (bit<16>, 4 members).

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
pub const T_SEL: u32 = 33000001;
pub const T_CONST: u32 = 33000002;
pub const A_LEARN: u32 = 16000001;
pub const A_TO_CPU: u32 = 16000002;
pub const C_PKTS: u32 = 302000001;
pub const M_POLICER: u32 = 335000001;
pub const DM_LPM: u32 = 364000001;
pub const R_REG: u32 = 369000001;
pub const D_DIGEST: u32 = 385000001;
pub const AP: u32 = 285000001;
pub const VS_PVS: u32 = 56000001;

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
    t_exact.action_refs.push(cfg::ActionRef { id: A_LEARN, ..Default::default() });
    t_exact.action_refs.push(cfg::ActionRef { id: A_TO_CPU, ..Default::default() });
    let mut t_lpm = table(T_LPM, "MyIngress.t_lpm", "hdr.ethernet.srcAddr", 48, M::Lpm);
    t_lpm.direct_resource_ids = vec![DM_LPM];
    let mut t_sel = table(T_SEL, "MyIngress.t_sel", "hdr.ethernet.etherType", 16, M::Exact);
    t_sel.implementation_id = AP;
    t_sel.size = 1024;
    let mut t_const = table(T_CONST, "MyIngress.t_const", "hdr.ethernet.etherType", 16, M::Exact);
    t_const.action_refs = vec![
        cfg::ActionRef { id: A_SET_PORT, ..Default::default() },
        cfg::ActionRef { id: A_NOACTION, ..Default::default() },
    ];
    t_const.is_const_table = true;
    t_const.size = 2;
    let mut t_tern = table(T_TERN, "MyIngress.t_tern", "hdr.ethernet.etherType", 16, M::Ternary);
    t_tern.const_default_action_id = A_NOACTION;
    t_tern.direct_resource_ids = vec![C_TERN];
    t_tern.size = 1024;
    cfg::P4Info {
        tables: vec![t_exact, t_lpm, t_tern, t_sel, t_const],
        actions: vec![
            cfg::Action { preamble: pre(A_NOACTION, "NoAction"), params: vec![] },
            cfg::Action {
                preamble: pre(A_SET_PORT, "MyIngress.set_port"),
                params: vec![cfg::action::Param { id: 1, name: "port".into(), bitwidth: 9, ..Default::default() }],
            },
            cfg::Action { preamble: pre(A_DROP, "MyIngress.drop"), params: vec![] },
            cfg::Action { preamble: pre(A_LEARN, "MyIngress.learn"), params: vec![] },
            cfg::Action { preamble: pre(A_TO_CPU, "MyIngress.to_cpu"), params: vec![] },
        ],
        action_profiles: vec![cfg::ActionProfile {
            preamble: pre(AP, "MyIngress.ap"),
            table_ids: vec![T_SEL],
            with_selector: true,
            size: 64,
            max_group_size: 16,
            ..Default::default()
        }],
        counters: vec![cfg::Counter {
            preamble: pre(C_PKTS, "MyIngress.pkts"),
            spec: Some(cfg::CounterSpec { unit: cfg::counter_spec::Unit::Both as i32 }),
            size: 16,
            ..Default::default()
        }],
        meters: vec![cfg::Meter {
            preamble: pre(M_POLICER, "MyIngress.policer"),
            spec: Some(cfg::MeterSpec { unit: cfg::meter_spec::Unit::Bytes as i32, ..Default::default() }),
            size: 8,
            ..Default::default()
        }],
        direct_meters: vec![cfg::DirectMeter {
            preamble: pre(DM_LPM, "MyIngress.t_lpm_meter"),
            spec: Some(cfg::MeterSpec { unit: cfg::meter_spec::Unit::Packets as i32, ..Default::default() }),
            direct_table_id: T_LPM,
        }],
        registers: vec![cfg::Register {
            preamble: pre(R_REG, "MyIngress.reg"),
            type_spec: Some(cfg::P4DataTypeSpec {
                type_spec: Some(cfg::p4_data_type_spec::TypeSpec::Bitstring(cfg::P4BitstringLikeTypeSpec {
                    type_spec: Some(cfg::p4_bitstring_like_type_spec::TypeSpec::Bit(cfg::P4BitTypeSpec { bitwidth: 32 })),
                    ..Default::default()
                })),
            }),
            size: 8,
            ..Default::default()
        }],
        value_sets: vec![cfg::ValueSet {
            preamble: pre(VS_PVS, "MyParser.pvs"),
            r#match: vec![cfg::MatchField {
                id: 1,
                name: "ether_type".into(),
                bitwidth: 16,
                r#match: Some(cfg::match_field::Match::MatchType(cfg::match_field::MatchType::Exact as i32)),
                ..Default::default()
            }],
            size: 4,
        }],
        digests: vec![cfg::Digest { preamble: pre(D_DIGEST, "digest_t"), type_spec: None }],
        direct_counters: vec![cfg::DirectCounter {
            preamble: pre(C_TERN, "MyIngress.t_tern_counter"),
            spec: Some(cfg::CounterSpec { unit: cfg::counter_spec::Unit::Both as i32 }),
            direct_table_id: T_TERN,
        }],
        ..Default::default()
    }
}
