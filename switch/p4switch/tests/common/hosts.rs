//! The P4Runtime side of the learning-switch programs some tests load: a
//! `MyIngress.hosts` table (exact destination MAC, NoAction, room for 2^20
//! entries) that the controller fills, and the `learn_t` digest.

use p4runtime_server::proto::p4::config::v1 as cfg;
use p4runtime_server::proto::p4::v1 as p4v1;

pub const NOACTION: u32 = 21_257_015;
pub const HOSTS: u32 = 40_000_001;
pub const LEARN: u32 = 385_000_001;

/// The P4Info; `idle_timeout`: `hosts` notifies the controller of idle entries.
pub fn hosts_p4info(idle_timeout: bool) -> cfg::P4Info {
    let preamble = |id: u32, name: &str| Some(cfg::Preamble { id, name: name.into(), alias: name.into(), ..Default::default() });
    let idle = if idle_timeout { cfg::table::IdleTimeoutBehavior::NotifyControl } else { cfg::table::IdleTimeoutBehavior::NoTimeout };
    cfg::P4Info {
        actions: vec![cfg::Action { preamble: preamble(NOACTION, "NoAction"), params: vec![] }],
        tables: vec![cfg::Table {
            preamble: preamble(HOSTS, "MyIngress.hosts"),
            match_fields: vec![cfg::MatchField {
                id: 1,
                name: "ethernet.dstAddr".into(),
                bitwidth: 48,
                r#match: Some(cfg::match_field::Match::MatchType(cfg::match_field::MatchType::Exact as i32)),
                ..Default::default()
            }],
            action_refs: vec![cfg::ActionRef { id: NOACTION, ..Default::default() }],
            size: 1 << 20,
            idle_timeout_behavior: idle as i32,
            ..Default::default()
        }],
        digests: vec![cfg::Digest { preamble: preamble(LEARN, "learn_t"), type_spec: None }],
        ..Default::default()
    }
}

/// An insert of `hosts` entry `i` (MAC 06:00 followed by `i`).
pub fn host(i: u32, idle_timeout_ns: i64) -> p4v1::Update {
    let b = i.to_be_bytes();
    let te = p4v1::TableEntry {
        table_id: HOSTS,
        r#match: vec![p4v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact {
                value: vec![0x06, 0, b[0], b[1], b[2], b[3]],
            })),
        }],
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action { action_id: NOACTION, params: vec![] })),
        }),
        idle_timeout_ns,
        ..Default::default()
    };
    p4v1::Update { r#type: p4v1::update::Type::Insert as i32, entity: Some(p4v1::Entity { entity: Some(p4v1::entity::Entity::TableEntry(te)) }) }
}
