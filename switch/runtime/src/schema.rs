//! The P4Info of the running pipeline, indexed by id, and its mapping onto the
//! BMv2 JSON names the engine uses.
//!
//! p4c gives tables, actions and externs the same fully qualified name in the
//! P4Info and in the JSON, so objects are matched by name. Match fields and
//! action parameters are matched by name when both sides agree on the set of
//! names, else by position (their order is the same on both sides).
//! [`Schema::build`] refuses a P4Info that does not describe the device config.

use std::collections::{BTreeMap, HashMap};

use p4engine::{MatchKind as EngineKind, ProgramInfo};
/// Match kind of a key field: the engine's (P4Runtime uses the first five;
/// `Selector` and `Valid` exist only on the engine's side of a key).
pub use p4engine::MatchKind;

use crate::error::{RtError, RtResult};
use crate::proto::p4::config::v1 as cfg;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchFieldS {
    pub id: u32,
    pub name: String,
    pub bitwidth: u32,
    pub kind: MatchKind,
    /// Index of this field in the engine's key.
    pub engine_pos: usize,
    /// An `optional` P4Info field whose device-config key is `ternary`, as p4c-bm2-ss
    /// writes it: values go to the engine as all-ones or all-zero masks.
    pub optional_as_ternary: bool,
}

/// Where an action may be used in a table (P4Info `ActionRef.scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    TableAndDefault,
    TableOnly,
    DefaultOnly,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableS {
    pub id: u32,
    pub name: String,
    /// Key fields in P4Info order.
    pub fields: Vec<MatchFieldS>,
    pub actions: HashMap<u32, Scope>,
    pub const_default: bool,
    /// Action profile id (P4Info `implementation_id`), 0 for direct tables.
    pub profile: u32,
    pub direct_counter: u32,
    pub direct_meter: u32,
    pub size: i64,
    pub supports_idle: bool,
    pub is_const: bool,
    /// A table with ternary, range or optional fields orders entries by priority.
    pub needs_priority: bool,
}

impl TableS {
    pub fn field(&self, id: u32) -> Option<&MatchFieldS> {
        self.fields.iter().find(|f| f.id == id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamS {
    pub id: u32,
    pub name: String,
    pub bitwidth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionS {
    pub id: u32,
    pub name: String,
    /// Parameters in P4Info order (= engine order).
    pub params: Vec<ParamS>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileS {
    pub id: u32,
    pub name: String,
    pub with_selector: bool,
    pub size: i64,
    pub max_group_size: i32,
    pub table_ids: Vec<u32>,
}

/// An indexed extern array: counter, meter or register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayS {
    pub id: u32,
    pub name: String,
    pub size: i64,
    /// Register cell width (0 for counters and meters).
    pub bitwidth: u32,
}

/// A direct counter or meter and its table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectS {
    pub id: u32,
    pub name: String,
    pub table_id: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestS {
    pub id: u32,
    pub name: String,
    /// The engine's learn-list name.
    pub engine_name: String,
    pub field_widths: Vec<u32>,
}

/// A parser value set: its key parts (P4Info order = the engine's bit order,
/// first part in the most significant bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSetS {
    pub id: u32,
    pub name: String,
    /// The engine's value-set name.
    pub engine_name: String,
    /// (match field id, name, bitwidth, kind) per key part.
    pub fields: Vec<MatchFieldS>,
    pub size: u32,
}

impl ValueSetS {
    pub fn total_bits(&self) -> u32 {
        self.fields.iter().map(|f| f.bitwidth).sum()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketMetaS {
    pub id: u32,
    pub name: String,
    pub bitwidth: u32,
}

/// Everything the server needs to translate P4Runtime ids for one pipeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    pub tables: BTreeMap<u32, TableS>,
    pub table_by_name: HashMap<String, u32>,
    pub actions: BTreeMap<u32, ActionS>,
    pub action_by_name: HashMap<String, u32>,
    pub profiles: BTreeMap<u32, ProfileS>,
    pub profile_by_name: HashMap<String, u32>,
    pub counters: BTreeMap<u32, ArrayS>,
    pub direct_counters: BTreeMap<u32, DirectS>,
    pub meters: BTreeMap<u32, ArrayS>,
    pub direct_meters: BTreeMap<u32, DirectS>,
    pub registers: BTreeMap<u32, ArrayS>,
    pub digests: BTreeMap<u32, DigestS>,
    pub digest_by_engine_name: HashMap<String, u32>,
    pub value_sets: BTreeMap<u32, ValueSetS>,
    /// `packet_in` controller header fields in wire order.
    pub packet_in: Option<Vec<PacketMetaS>>,
    /// `packet_out` controller header fields in wire order.
    pub packet_out: Option<Vec<PacketMetaS>>,
}

/// Widest controller packet metadata field accepted.
const MAX_METADATA_BITS: u32 = 4096;

fn preamble(p: &Option<cfg::Preamble>, what: &str) -> RtResult<(u32, String)> {
    match p {
        Some(p) if p.id != 0 => Ok((p.id, p.name.clone())),
        Some(p) => Err(RtError::invalid(format!("P4Info {what} '{}' has id 0", p.name))),
        None => Err(RtError::invalid(format!("P4Info {what} without preamble"))),
    }
}

fn width(bits: i32, what: &str) -> RtResult<u32> {
    if bits <= 0 {
        return Err(RtError::invalid(format!("P4Info {what}: bitwidth {bits} is not positive")));
    }
    Ok(bits as u32)
}

fn bit_width_of(spec: &Option<cfg::P4DataTypeSpec>) -> Option<u32> {
    use cfg::p4_bitstring_like_type_spec::TypeSpec as B;
    use cfg::p4_data_type_spec::TypeSpec as T;
    match spec.as_ref()?.type_spec.as_ref()? {
        T::Bitstring(b) => match b.type_spec.as_ref()? {
            B::Bit(b) => u32::try_from(b.bitwidth).ok(),
            B::Int(i) => u32::try_from(i.bitwidth).ok(),
            B::Varbit(v) => u32::try_from(v.max_bitwidth).ok(),
        },
        T::Bool(_) => Some(1),
        _ => None,
    }
}

fn insert_unique<T>(map: &mut BTreeMap<u32, T>, id: u32, v: T, what: &str) -> RtResult<()> {
    if map.insert(id, v).is_some() {
        return Err(RtError::invalid(format!("P4Info: duplicate {what} id {id}")));
    }
    Ok(())
}

impl Schema {
    /// Indexes `p4info` and checks it against the loaded program `prog`.
    pub fn build(p4info: &cfg::P4Info, prog: &ProgramInfo) -> RtResult<Schema> {
        let mut s = Schema::default();

        for a in &p4info.actions {
            let (id, name) = preamble(&a.preamble, "action")?;
            let eng = prog.action(&name).ok_or_else(|| {
                RtError::invalid(format!("P4Info action '{name}' is not in the device config"))
            })?;
            if eng.params.len() != a.params.len() {
                return Err(RtError::invalid(format!(
                    "action '{name}': P4Info has {} parameters, device config {}",
                    a.params.len(),
                    eng.params.len()
                )));
            }
            let mut params = Vec::new();
            for (i, p) in a.params.iter().enumerate() {
                let bw = width(p.bitwidth, &format!("action '{name}' param '{}'", p.name))?;
                if eng.params[i].1 != bw {
                    return Err(RtError::invalid(format!(
                        "action '{name}' param '{}': P4Info says bit<{bw}>, device config bit<{}>",
                        p.name, eng.params[i].1
                    )));
                }
                params.push(ParamS { id: p.id, name: p.name.clone(), bitwidth: bw });
            }
            s.action_by_name.insert(name.clone(), id);
            insert_unique(&mut s.actions, id, ActionS { id, name, params }, "action")?;
        }

        for t in &p4info.tables {
            let (id, name) = preamble(&t.preamble, "table")?;
            let eng = prog.table(&name).ok_or_else(|| {
                RtError::invalid(format!("P4Info table '{name}' is not in the device config"))
            })?;
            if eng.keys.len() != t.match_fields.len() {
                return Err(RtError::invalid(format!(
                    "table '{name}': P4Info has {} match fields, device config {}",
                    t.match_fields.len(),
                    eng.keys.len()
                )));
            }
            let by_name = t
                .match_fields
                .iter()
                .all(|m| eng.keys.iter().filter(|k| k.name == m.name).count() == 1);
            let mut fields = Vec::new();
            let mut needs_priority = false;
            for (i, m) in t.match_fields.iter().enumerate() {
                let what = format!("table '{name}' match field '{}'", m.name);
                let bw = width(m.bitwidth, &what)?;
                let kind = match &m.r#match {
                    Some(cfg::match_field::Match::MatchType(k)) => {
                        use cfg::match_field::MatchType as M;
                        match M::try_from(*k) {
                            Ok(M::Exact) => MatchKind::Exact,
                            Ok(M::Lpm) => MatchKind::Lpm,
                            Ok(M::Ternary) => MatchKind::Ternary,
                            Ok(M::Range) => MatchKind::Range,
                            Ok(M::Optional) => MatchKind::Optional,
                            _ => return Err(RtError::invalid(format!("{what}: unsupported match type {k}"))),
                        }
                    }
                    Some(cfg::match_field::Match::OtherMatchType(o)) => {
                        return Err(RtError::invalid(format!("{what}: unsupported match type '{o}'")))
                    }
                    None => return Err(RtError::invalid(format!("{what}: no match type"))),
                };
                let pos = if by_name {
                    eng.keys.iter().position(|k| k.name == m.name).unwrap_or(i)
                } else {
                    i
                };
                let ek = &eng.keys[pos];
                let compatible = matches!(
                    (kind, ek.match_kind),
                    (MatchKind::Exact, EngineKind::Exact)
                        | (MatchKind::Exact, EngineKind::Valid)
                        | (MatchKind::Lpm, EngineKind::Lpm)
                        | (MatchKind::Ternary, EngineKind::Ternary)
                        | (MatchKind::Range, EngineKind::Range)
                        | (MatchKind::Optional, EngineKind::Optional)
                        | (MatchKind::Optional, EngineKind::Ternary)
                );
                if !compatible || ek.bitwidth != bw {
                    return Err(RtError::invalid(format!(
                        "{what}: P4Info says {kind:?} bit<{bw}>, device config {:?} bit<{}>",
                        ek.match_kind, ek.bitwidth
                    )));
                }
                needs_priority |= matches!(kind, MatchKind::Ternary | MatchKind::Range | MatchKind::Optional);
                let optional_as_ternary = kind == MatchKind::Optional && ek.match_kind == EngineKind::Ternary;
                fields.push(MatchFieldS {
                    id: m.id,
                    name: m.name.clone(),
                    bitwidth: bw,
                    kind,
                    engine_pos: pos,
                    optional_as_ternary,
                });
            }
            let mut actions = HashMap::new();
            for r in &t.action_refs {
                use cfg::action_ref::Scope as S;
                let scope = match S::try_from(r.scope) {
                    Ok(S::TableOnly) => Scope::TableOnly,
                    Ok(S::DefaultOnly) => Scope::DefaultOnly,
                    _ => Scope::TableAndDefault,
                };
                if !s.actions.contains_key(&r.id) {
                    return Err(RtError::invalid(format!("table '{name}' refers to unknown action id {}", r.id)));
                }
                actions.insert(r.id, scope);
            }
            let table = TableS {
                id,
                name: name.clone(),
                fields,
                actions,
                const_default: t.const_default_action_id != 0 || eng.default_action_const,
                profile: t.implementation_id,
                direct_counter: 0,
                direct_meter: 0,
                size: t.size,
                supports_idle: t.idle_timeout_behavior != 0 || eng.support_timeout,
                is_const: t.is_const_table || eng.has_const_entries,
                needs_priority,
            };
            s.table_by_name.insert(name, id);
            insert_unique(&mut s.tables, id, table, "table")?;
        }

        for p in &p4info.action_profiles {
            let (id, name) = preamble(&p.preamble, "action profile")?;
            if !prog.action_profiles.iter().any(|e| e.name == name) {
                return Err(RtError::invalid(format!("P4Info action profile '{name}' is not in the device config")));
            }
            s.profile_by_name.insert(name.clone(), id);
            let prof = ProfileS {
                id,
                name,
                with_selector: p.with_selector,
                size: p.size,
                max_group_size: p.max_group_size,
                table_ids: p.table_ids.clone(),
            };
            insert_unique(&mut s.profiles, id, prof, "action profile")?;
        }
        for t in s.tables.values() {
            if t.profile != 0 && !s.profiles.contains_key(&t.profile) {
                return Err(RtError::invalid(format!(
                    "table '{}' uses unknown action profile id {}",
                    t.name, t.profile
                )));
            }
        }

        for c in &p4info.counters {
            let (id, name) = preamble(&c.preamble, "counter")?;
            let eng = prog.counters.iter().find(|e| e.name == name && e.direct_table.is_none()).ok_or_else(|| {
                RtError::invalid(format!("P4Info counter '{name}' is not in the device config"))
            })?;
            let size = eng.size as i64; // the device's size is authoritative
            insert_unique(&mut s.counters, id, ArrayS { id, name, size, bitwidth: 0 }, "counter")?;
        }
        for m in &p4info.meters {
            let (id, name) = preamble(&m.preamble, "meter")?;
            let eng = prog.meters.iter().find(|e| e.name == name && e.direct_table.is_none()).ok_or_else(|| {
                RtError::invalid(format!("P4Info meter '{name}' is not in the device config"))
            })?;
            let size = eng.size as i64;
            insert_unique(&mut s.meters, id, ArrayS { id, name, size, bitwidth: 0 }, "meter")?;
        }
        for c in &p4info.direct_counters {
            let (id, name) = preamble(&c.preamble, "direct counter")?;
            let t = s.tables.get_mut(&c.direct_table_id).ok_or_else(|| {
                RtError::invalid(format!("direct counter '{name}' refers to unknown table id {}", c.direct_table_id))
            })?;
            t.direct_counter = id;
            let d = DirectS { id, name, table_id: c.direct_table_id };
            insert_unique(&mut s.direct_counters, id, d, "direct counter")?;
        }
        for m in &p4info.direct_meters {
            let (id, name) = preamble(&m.preamble, "direct meter")?;
            let t = s.tables.get_mut(&m.direct_table_id).ok_or_else(|| {
                RtError::invalid(format!("direct meter '{name}' refers to unknown table id {}", m.direct_table_id))
            })?;
            t.direct_meter = id;
            let d = DirectS { id, name, table_id: m.direct_table_id };
            insert_unique(&mut s.direct_meters, id, d, "direct meter")?;
        }
        for r in &p4info.registers {
            let (id, name) = preamble(&r.preamble, "register")?;
            let eng = prog.registers.iter().find(|e| e.name == name).ok_or_else(|| {
                RtError::invalid(format!("P4Info register '{name}' is not in the device config"))
            })?;
            // The device config's width is authoritative; a P4Info that says
            // otherwise describes another program.
            let bw = eng.bitwidth;
            if let Some(p4w) = bit_width_of(&r.type_spec) {
                if p4w != bw {
                    return Err(RtError::invalid(format!(
                        "register '{name}': P4Info says bit<{p4w}>, device config bit<{bw}>"
                    )));
                }
            }
            let a = ArrayS { id, name, size: eng.size as i64, bitwidth: bw };
            insert_unique(&mut s.registers, id, a, "register")?;
        }
        for (i, d) in p4info.digests.iter().enumerate() {
            let (id, name) = preamble(&d.preamble, "digest")?;
            let eng = prog
                .learn_lists
                .iter()
                .find(|l| l.name == name)
                .or_else(|| {
                    (prog.learn_lists.len() == p4info.digests.len()).then(|| &prog.learn_lists[i])
                })
                .ok_or_else(|| RtError::invalid(format!("P4Info digest '{name}' is not in the device config")))?;
            s.digest_by_engine_name.insert(eng.name.clone(), id);
            let ds = DigestS {
                id,
                name,
                engine_name: eng.name.clone(),
                field_widths: eng.fields.iter().map(|f| f.1).collect(),
            };
            insert_unique(&mut s.digests, id, ds, "digest")?;
        }
        for (i, v) in p4info.value_sets.iter().enumerate() {
            let (id, name) = preamble(&v.preamble, "value set")?;
            let eng = prog
                .value_sets
                .iter()
                .find(|e| e.name == name)
                .or_else(|| (prog.value_sets.len() == p4info.value_sets.len()).then(|| &prog.value_sets[i]))
                .ok_or_else(|| RtError::invalid(format!("P4Info value set '{name}' is not in the device config")))?;
            let mut fields = Vec::new();
            for (pos, m) in v.r#match.iter().enumerate() {
                let what = format!("value set '{name}' field '{}'", m.name);
                let bw = width(m.bitwidth, &what)?;
                let kind = match &m.r#match {
                    Some(cfg::match_field::Match::MatchType(k)) => {
                        use cfg::match_field::MatchType as M;
                        match M::try_from(*k) {
                            Ok(M::Ternary) => MatchKind::Ternary,
                            // value sets match exactly unless a part is ternary
                            _ => MatchKind::Exact,
                        }
                    }
                    _ => MatchKind::Exact,
                };
                fields.push(MatchFieldS {
                    id: m.id,
                    name: m.name.clone(),
                    bitwidth: bw,
                    kind,
                    engine_pos: pos,
                    optional_as_ternary: false,
                });
            }
            let total: u64 = fields.iter().map(|f| f.bitwidth as u64).sum();
            let eng_total: u64 = eng.bitwidths.iter().map(|&w| w as u64).sum();
            if total != eng_total {
                return Err(RtError::invalid(format!(
                    "value set '{name}': P4Info key is {total} bits, device config {eng_total} bits"
                )));
            }
            let vs = ValueSetS {
                id,
                name,
                engine_name: eng.name.clone(),
                fields,
                size: if v.size > 0 { v.size as u32 } else { eng.max_size },
            };
            insert_unique(&mut s.value_sets, id, vs, "value set")?;
        }
        for c in &p4info.controller_packet_metadata {
            let (_, name) = preamble(&c.preamble, "controller packet metadata")?;
            let mut fields = Vec::new();
            for m in &c.metadata {
                let bw = width(m.bitwidth, &format!("{name} metadata '{}'", m.name))?;
                // Controller headers are a few bytes; refuse absurd widths
                // rather than allocate them for every packet.
                if bw > MAX_METADATA_BITS {
                    return Err(RtError::invalid(format!(
                        "{name} metadata '{}': bit<{bw}> is wider than {MAX_METADATA_BITS} bits",
                        m.name
                    )));
                }
                fields.push(PacketMetaS { id: m.id, name: m.name.clone(), bitwidth: bw });
            }
            match name.as_str() {
                "packet_in" => s.packet_in = Some(fields),
                "packet_out" => s.packet_out = Some(fields),
                _ => {}
            }
        }
        Ok(s)
    }

    pub fn table(&self, id: u32) -> RtResult<&TableS> {
        self.tables.get(&id).ok_or_else(|| RtError::invalid(format!("unknown table id {id}")))
    }
    pub fn action(&self, id: u32) -> RtResult<&ActionS> {
        self.actions.get(&id).ok_or_else(|| RtError::invalid(format!("unknown action id {id}")))
    }
    pub fn profile(&self, id: u32) -> RtResult<&ProfileS> {
        self.profiles.get(&id).ok_or_else(|| RtError::invalid(format!("unknown action profile id {id}")))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use p4engine::{ActionInfo, KeyFieldInfo, TableInfo, TableKind};

    fn pre(id: u32, name: &str) -> Option<cfg::Preamble> {
        Some(cfg::Preamble { id, name: name.into(), ..Default::default() })
    }

    pub(crate) fn mf(id: u32, name: &str, bw: i32, k: cfg::match_field::MatchType) -> cfg::MatchField {
        cfg::MatchField {
            id,
            name: name.into(),
            bitwidth: bw,
            r#match: Some(cfg::match_field::Match::MatchType(k as i32)),
            ..Default::default()
        }
    }

    /// A P4Info + engine program pair: table `ingress.t` (exact bit<9>,
    /// ternary bit<32>), action `ingress.fwd(bit<9> port)` and `NoAction`.
    pub(crate) fn fixture() -> (cfg::P4Info, ProgramInfo) {
        use cfg::match_field::MatchType as M;
        let p4info = cfg::P4Info {
            tables: vec![cfg::Table {
                preamble: pre(100, "ingress.t"),
                match_fields: vec![mf(1, "port", 9, M::Exact), mf(2, "dst", 32, M::Ternary)],
                action_refs: vec![
                    cfg::ActionRef { id: 10, ..Default::default() },
                    cfg::ActionRef { id: 11, scope: 2, ..Default::default() },
                ],
                size: 1024,
                ..Default::default()
            }],
            actions: vec![
                cfg::Action {
                    preamble: pre(10, "ingress.fwd"),
                    params: vec![cfg::action::Param { id: 1, name: "port".into(), bitwidth: 9, ..Default::default() }],
                },
                cfg::Action { preamble: pre(11, "NoAction"), params: vec![] },
            ],
            ..Default::default()
        };
        let key = |n: &str, k, w| KeyFieldInfo { name: n.into(), match_kind: k, bitwidth: w };
        let prog = ProgramInfo {
            tables: vec![TableInfo {
                name: "ingress.t".into(),
                id: 0,
                // engine order differs from P4Info order: mapping goes by name
                keys: vec![key("dst", EngineKind::Ternary, 32), key("port", EngineKind::Exact, 9)],
                selector_keys: vec![],
                kind: TableKind::Simple,
                actions: vec!["ingress.fwd".into(), "NoAction".into()],
                default_action: None,
                default_action_const: false,
                has_const_entries: false,
                max_size: 1024,
                direct_counter: None,
                direct_meter: None,
                action_profile: None,
                support_timeout: false,
            }],
            actions: vec![
                ActionInfo { name: "ingress.fwd".into(), id: 0, params: vec![("port".into(), 9)] },
                ActionInfo { name: "NoAction".into(), id: 1, params: vec![] },
            ],
            ..Default::default()
        };
        (p4info, prog)
    }

    #[test]
    fn builds_id_maps() {
        let (p4info, prog) = fixture();
        let s = Schema::build(&p4info, &prog).expect("schema");
        let t = s.table(100).unwrap();
        assert_eq!(t.name, "ingress.t");
        assert!(t.needs_priority);
        assert_eq!(t.field(1).unwrap().engine_pos, 1);
        assert_eq!(t.field(2).unwrap().engine_pos, 0);
        assert_eq!(t.actions.get(&11), Some(&Scope::DefaultOnly));
        assert_eq!(s.action(10).unwrap().params[0].bitwidth, 9);
        assert_eq!(s.table_by_name["ingress.t"], 100);
        assert_eq!(s.table(5).unwrap_err().code, tonic::Code::InvalidArgument);
    }

    #[test]
    fn refuses_p4info_that_does_not_match_the_program() {
        let (mut p4info, prog) = fixture();
        p4info.tables[0].preamble = pre(100, "ingress.other");
        let e = Schema::build(&p4info, &prog).unwrap_err();
        assert!(e.message.contains("ingress.other"), "{}", e.message);

        let (mut p4info, prog) = fixture();
        p4info.actions[0].params[0].bitwidth = 16;
        assert!(Schema::build(&p4info, &prog).is_err());

        let (mut p4info, prog) = fixture();
        p4info.tables[0].match_fields.pop();
        assert!(Schema::build(&p4info, &prog).is_err());
    }
}
