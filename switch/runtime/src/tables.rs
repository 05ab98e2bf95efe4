//! Translation of P4Runtime table entries (match, action, priority, direct
//! resources) to and from the engine's types, with every check the P4Runtime
//! specification asks for: ids, widths, match kinds, don't-care fields that
//! must be omitted, bits outside masks and prefixes, priorities, action scopes.

use p4engine::{ActionSpec, EntryAction, MatchKey, MeterConfig};

use crate::canonical::{self, all_ones, has_bits_outside, prefix_mask, to_width};
use crate::error::{RtError, RtResult};
use crate::proto::p4::v1 as p4v1;
use crate::schema::{ActionS, MatchKind, Schema, Scope, TableS};
use p4v1::field_match::FieldMatchType as F;

/// `value` checked against `bitwidth` and padded to full width; `what` names
/// the value in the error (built only on error: this is the hot path of writes).
fn checked(value: &[u8], bitwidth: u32, what: impl Fn() -> String) -> RtResult<Vec<u8>> {
    canonical::fits(value, bitwidth).map_err(|e| RtError::width(what(), e))?;
    Ok(to_width(value, bitwidth))
}

/// The engine key (in engine order) of a P4Runtime match. Omitted fields are
/// wildcards (exact fields may not be omitted).
pub fn decode_match(t: &TableS, fms: &[p4v1::FieldMatch]) -> RtResult<Vec<MatchKey>> {
    let mut key: Vec<Option<MatchKey>> = vec![None; t.fields.len()];
    for fm in fms {
        let f = t
            .field(fm.field_id)
            .ok_or_else(|| RtError::invalid(format!("table '{}': unknown match field id {}", t.name, fm.field_id)))?;
        let what = || format!("table '{}' field '{}'", t.name, f.name);
        if key[f.engine_pos].is_some() {
            return Err(RtError::invalid(format!("{}: given twice", what())));
        }
        let bw = f.bitwidth;
        let k = match (&fm.field_match_type, f.kind) {
            (Some(F::Exact(e)), MatchKind::Exact) => MatchKey::Exact(checked(&e.value, bw, what)?),
            (Some(F::Lpm(l)), MatchKind::Lpm) => {
                if l.prefix_len <= 0 || l.prefix_len as u32 > bw {
                    return Err(RtError::invalid(format!(
                        "{}: prefix length {} not in 1..={bw} (omit the field for a wildcard)",
                        what(),
                        l.prefix_len
                    )));
                }
                let v = checked(&l.value, bw, what)?;
                if has_bits_outside(&v, &prefix_mask(bw, l.prefix_len as u32)) {
                    return Err(RtError::invalid(format!("{}: value has bits set beyond the /{} prefix", what(), l.prefix_len)));
                }
                MatchKey::Lpm(v, l.prefix_len as u32)
            }
            (Some(F::Ternary(tm)), MatchKind::Ternary) => {
                let v = checked(&tm.value, bw, || format!("{} value", what()))?;
                let m = checked(&tm.mask, bw, || format!("{} mask", what()))?;
                if m.iter().all(|&b| b == 0) {
                    return Err(RtError::invalid(format!("{}: all-zero mask (omit the field for a wildcard)", what())));
                }
                if has_bits_outside(&v, &m) {
                    return Err(RtError::invalid(format!("{}: value has bits set outside the mask", what())));
                }
                MatchKey::Ternary(v, m)
            }
            (Some(F::Range(r)), MatchKind::Range) => {
                let lo = checked(&r.low, bw, || format!("{} low", what()))?;
                let hi = checked(&r.high, bw, || format!("{} high", what()))?;
                if lo > hi {
                    return Err(RtError::invalid(format!("{}: low bound above high bound", what())));
                }
                if lo.iter().all(|&b| b == 0) && hi == all_ones(bw) {
                    return Err(RtError::invalid(format!("{}: full range (omit the field for a wildcard)", what())));
                }
                MatchKey::Range(lo, hi)
            }
            (Some(F::Optional(o)), MatchKind::Optional) if f.optional_as_ternary => {
                MatchKey::Ternary(checked(&o.value, bw, what)?, all_ones(bw))
            }
            (Some(F::Optional(o)), MatchKind::Optional) => MatchKey::Optional(Some(checked(&o.value, bw, what)?)),
            (Some(F::Other(_)), _) => {
                return Err(RtError::unimplemented(format!("{}: 'other' match types are not supported", what())))
            }
            (None, _) => return Err(RtError::invalid(format!("{}: no match value", what()))),
            (Some(_), kind) => return Err(RtError::invalid(format!("{}: is a {kind:?} field, got another match kind", what()))),
        };
        key[f.engine_pos] = Some(k);
    }
    let mut out = Vec::with_capacity(key.len());
    for f in &t.fields {
        let bw = f.bitwidth;
        let n = (bw as usize).div_ceil(8).max(1);
        out.push(match (key[f.engine_pos].take(), f.kind) {
            (Some(k), _) => (f.engine_pos, k),
            // (P4Info never yields Valid or Selector; they would be exact too)
            (None, MatchKind::Exact | MatchKind::Valid | MatchKind::Selector) => {
                return Err(RtError::invalid(format!("table '{}': exact field '{}' is missing", t.name, f.name)))
            }
            (None, MatchKind::Lpm) => (f.engine_pos, MatchKey::Lpm(vec![0; n], 0)),
            (None, MatchKind::Ternary) => (f.engine_pos, MatchKey::Ternary(vec![0; n], vec![0; n])),
            (None, MatchKind::Range) => (f.engine_pos, MatchKey::Range(vec![0; n], all_ones(bw))),
            (None, MatchKind::Optional) if f.optional_as_ternary => {
                (f.engine_pos, MatchKey::Ternary(vec![0; n], vec![0; n]))
            }
            (None, MatchKind::Optional) => (f.engine_pos, MatchKey::Optional(None)),
        });
    }
    out.sort_by_key(|(pos, _)| *pos);
    Ok(out.into_iter().map(|(_, k)| k).collect())
}

/// The P4Runtime match of an engine key: canonical values, wildcards omitted.
pub fn encode_match(t: &TableS, key: &[MatchKey]) -> Vec<p4v1::FieldMatch> {
    use p4v1::field_match as fm;
    let mut out = Vec::with_capacity(t.fields.len());
    for f in &t.fields {
        let Some(k) = key.get(f.engine_pos) else { continue };
        let c = canonical::canonical;
        let m = match k {
            MatchKey::Exact(v) => Some(F::Exact(fm::Exact { value: c(v) })),
            MatchKey::Lpm(_, 0) => None,
            MatchKey::Lpm(v, p) => Some(F::Lpm(fm::Lpm { value: c(v), prefix_len: *p as i32 })),
            MatchKey::Ternary(_, m) if m.iter().all(|&b| b == 0) => None,
            MatchKey::Ternary(v, _) if f.optional_as_ternary => Some(F::Optional(fm::Optional { value: c(v) })),
            MatchKey::Ternary(v, m) => Some(F::Ternary(fm::Ternary { value: c(v), mask: c(m) })),
            MatchKey::Range(lo, hi)
                if lo.iter().all(|&b| b == 0) && canonical::cmp(hi, &all_ones(f.bitwidth)).is_eq() =>
            {
                None
            }
            MatchKey::Range(lo, hi) => Some(F::Range(fm::Range { low: c(lo), high: c(hi) })),
            MatchKey::Optional(None) => None,
            MatchKey::Optional(Some(v)) => Some(F::Optional(fm::Optional { value: c(v) })),
        };
        if let Some(m) = m {
            out.push(p4v1::FieldMatch { field_id: f.id, field_match_type: Some(m) });
        }
    }
    out
}

/// Checks an entry's priority against the table (priorities only for tables
/// with ternary, range or optional fields).
pub fn check_priority(t: &TableS, priority: i32) -> RtResult<i32> {
    if t.needs_priority {
        if priority <= 0 {
            return Err(RtError::invalid(format!(
                "table '{}' has ternary/range/optional fields: entries need a priority > 0",
                t.name
            )));
        }
    } else if priority != 0 {
        return Err(RtError::invalid(format!("table '{}' has no ternary/range/optional fields: priority must be 0", t.name)));
    }
    Ok(priority)
}

/// An action call with its parameters checked and in engine order.
pub fn decode_action_call<'s>(schema: &'s Schema, a: &p4v1::Action) -> RtResult<(&'s ActionS, ActionSpec)> {
    let act = schema.action(a.action_id)?;
    let mut params: Vec<Option<Vec<u8>>> = vec![None; act.params.len()];
    for p in &a.params {
        let i = act.params.iter().position(|x| x.id == p.param_id).ok_or_else(|| {
            RtError::invalid(format!("action '{}': unknown parameter id {}", act.name, p.param_id))
        })?;
        if params[i].is_some() {
            return Err(RtError::invalid(format!("action '{}': parameter '{}' given twice", act.name, act.params[i].name)));
        }
        let ps = &act.params[i];
        params[i] = Some(checked(&p.value, ps.bitwidth, || format!("action '{}' parameter '{}'", act.name, ps.name))?);
    }
    let mut out = Vec::with_capacity(params.len());
    for (i, p) in params.into_iter().enumerate() {
        match p {
            Some(v) => out.push(v),
            None => {
                return Err(RtError::invalid(format!("action '{}': parameter '{}' is missing", act.name, act.params[i].name)))
            }
        }
    }
    Ok((act, ActionSpec { action: act.name.clone(), params: out }))
}

/// A direct action for a table entry (`default` = for the default entry).
pub fn decode_table_action(schema: &Schema, t: &TableS, a: &p4v1::Action, default: bool) -> RtResult<ActionSpec> {
    let (act, spec) = decode_action_call(schema, a)?;
    match t.actions.get(&act.id) {
        None => Err(RtError::invalid(format!("action '{}' is not an action of table '{}'", act.name, t.name))),
        Some(Scope::DefaultOnly) if !default => {
            Err(RtError::invalid(format!("action '{}' is @defaultonly in table '{}'", act.name, t.name)))
        }
        Some(Scope::TableOnly) if default => {
            Err(RtError::invalid(format!("action '{}' is @tableonly in table '{}'", act.name, t.name)))
        }
        _ => Ok(spec),
    }
}

/// The P4Runtime form of an engine action call.
pub fn encode_action_call(schema: &Schema, spec: &ActionSpec) -> p4v1::Action {
    let Some(id) = schema.action_by_name.get(&spec.action) else {
        return p4v1::Action::default();
    };
    let act = &schema.actions[id];
    p4v1::Action {
        action_id: *id,
        params: act
            .params
            .iter()
            .zip(&spec.params)
            .map(|(p, v)| p4v1::action::Param { param_id: p.id, value: canonical::canonical(v) })
            .collect(),
    }
}

pub fn encode_entry_action(schema: &Schema, a: &EntryAction) -> p4v1::TableAction {
    use p4v1::table_action::Type;
    let t = match a {
        EntryAction::Action(spec) => Type::Action(encode_action_call(schema, spec)),
        EntryAction::Member(m) => Type::ActionProfileMemberId(*m),
        EntryAction::Group(g) => Type::ActionProfileGroupId(*g),
    };
    p4v1::TableAction { r#type: Some(t) }
}

/// A P4Runtime meter config: `None` resets to unconfigured (an unset config,
/// or all of cir, cburst, pir, pburst = -1).
pub fn decode_meter_config(c: &Option<p4v1::MeterConfig>) -> RtResult<Option<MeterConfig>> {
    let Some(c) = c else { return Ok(None) };
    if [c.cir, c.cburst, c.pir, c.pburst].iter().all(|&v| v == -1) {
        return Ok(None);
    }
    if [c.cir, c.cburst, c.pir, c.pburst].iter().any(|&v| v < 0) {
        return Err(RtError::invalid("meter config: negative rate or burst"));
    }
    if c.pir < c.cir {
        return Err(RtError::invalid("meter config: pir must be >= cir (RFC 2698)"));
    }
    Ok(Some(MeterConfig { cir: c.cir as u64, cburst: c.cburst as u64, pir: c.pir as u64, pburst: c.pburst as u64 }))
}

pub fn encode_meter_config(c: &MeterConfig) -> p4v1::MeterConfig {
    let i = |v: u64| v.min(i64::MAX as u64) as i64;
    p4v1::MeterConfig { cir: i(c.cir), cburst: i(c.cburst), pir: i(c.pir), pburst: i(c.pburst), eburst: 0 }
}

pub fn counter_data(d: &p4engine::CounterData) -> p4v1::CounterData {
    p4v1::CounterData {
        byte_count: d.bytes.min(i64::MAX as u64) as i64,
        packet_count: d.packets.min(i64::MAX as u64) as i64,
    }
}

pub fn decode_counter_data(d: &p4v1::CounterData) -> RtResult<p4engine::CounterData> {
    if d.byte_count < 0 || d.packet_count < 0 {
        return Err(RtError::invalid("counter data: negative count"));
    }
    Ok(p4engine::CounterData { bytes: d.byte_count as u64, packets: d.packet_count as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::fixture;
    use p4v1::field_match as fm;
    use tonic::Code;

    fn schema() -> Schema {
        let (p, prog) = fixture();
        Schema::build(&p, &prog).unwrap()
    }
    fn exact(id: u32, v: &[u8]) -> p4v1::FieldMatch {
        p4v1::FieldMatch { field_id: id, field_match_type: Some(F::Exact(fm::Exact { value: v.to_vec() })) }
    }
    fn tern(id: u32, v: &[u8], m: &[u8]) -> p4v1::FieldMatch {
        p4v1::FieldMatch {
            field_id: id,
            field_match_type: Some(F::Ternary(fm::Ternary { value: v.to_vec(), mask: m.to_vec() })),
        }
    }

    #[test]
    fn match_goes_to_engine_order_and_back_canonical() {
        let s = schema();
        let t = s.table(100).unwrap();
        // padded input: port 5 as 4 bytes
        let key = decode_match(t, &[exact(1, &[0, 0, 0, 5]), tern(2, &[10, 0, 0, 0], &[255, 0, 0, 0])]).unwrap();
        assert_eq!(
            key,
            vec![MatchKey::Ternary(vec![10, 0, 0, 0], vec![255, 0, 0, 0]), MatchKey::Exact(vec![0, 5])]
        );
        let back = encode_match(t, &key);
        assert_eq!(back, vec![exact(1, &[5]), tern(2, &[10, 0, 0, 0], &[255, 0, 0, 0])]);
    }

    #[test]
    fn omitted_ternary_is_wildcard_and_omitted_exact_is_an_error() {
        let s = schema();
        let t = s.table(100).unwrap();
        let key = decode_match(t, &[exact(1, &[1])]).unwrap();
        assert_eq!(key[0], MatchKey::Ternary(vec![0; 4], vec![0; 4]));
        assert_eq!(encode_match(t, &key), vec![exact(1, &[1])]);
        assert_eq!(decode_match(t, &[tern(2, &[1], &[1])]).unwrap_err().code, Code::InvalidArgument);
    }

    #[test]
    fn bad_matches_are_invalid_argument() {
        let s = schema();
        let t = s.table(100).unwrap();
        // a value wider than its field, or empty, is OUT_OF_RANGE (spec, "Bytestrings")
        for fm in [exact(1, &[2, 0]), exact(1, &[])] {
            assert_eq!(decode_match(t, &[fm]).unwrap_err().code, Code::OutOfRange);
        }
        let cases: Vec<(&str, Vec<p4v1::FieldMatch>)> = vec![
            ("unknown field", vec![exact(1, &[1]), exact(9, &[1])]),
            ("twice", vec![exact(1, &[1]), exact(1, &[2])]),
            ("wrong kind", vec![tern(1, &[1], &[1])]),
            ("zero mask", vec![exact(1, &[1]), tern(2, &[0], &[0])]),
            ("bits outside mask", vec![exact(1, &[1]), tern(2, &[3], &[1])]),
        ];
        for (name, fms) in cases {
            let e = decode_match(t, &fms).unwrap_err();
            assert_eq!(e.code, Code::InvalidArgument, "{name}: {}", e.message);
        }
    }

    #[test]
    fn priorities() {
        let s = schema();
        let t = s.table(100).unwrap();
        assert!(check_priority(t, 0).is_err());
        assert_eq!(check_priority(t, 7).unwrap(), 7);
        let mut t2 = t.clone();
        t2.needs_priority = false;
        assert!(check_priority(&t2, 3).is_err());
        assert!(check_priority(&t2, 0).is_ok());
    }

    #[test]
    fn actions_checked_against_table_and_scope() {
        let s = schema();
        let t = s.table(100).unwrap();
        let fwd = |v: &[u8]| p4v1::Action {
            action_id: 10,
            params: vec![p4v1::action::Param { param_id: 1, value: v.to_vec() }],
        };
        let spec = decode_table_action(&s, t, &fwd(&[0, 0, 1, 2]), false).unwrap();
        assert_eq!(spec, ActionSpec { action: "ingress.fwd".into(), params: vec![vec![1, 2]] });
        assert_eq!(encode_action_call(&s, &spec), fwd(&[1, 2]));
        assert!(decode_table_action(&s, t, &fwd(&[2, 0]), false).is_err(), "10 bits in bit<9>");
        let missing = p4v1::Action { action_id: 10, params: vec![] };
        assert!(decode_table_action(&s, t, &missing, false).is_err());
        let noaction = p4v1::Action { action_id: 11, params: vec![] };
        assert!(decode_table_action(&s, t, &noaction, false).is_err(), "@defaultonly");
        assert!(decode_table_action(&s, t, &noaction, true).is_ok());
        let unknown = p4v1::Action { action_id: 99, params: vec![] };
        assert_eq!(decode_table_action(&s, t, &unknown, false).unwrap_err().code, Code::InvalidArgument);
    }

    #[test]
    fn meter_configs() {
        let c = |a, b, c, d| Some(p4v1::MeterConfig { cir: a, cburst: b, pir: c, pburst: d, eburst: 0 });
        assert_eq!(decode_meter_config(&None).unwrap(), None);
        assert_eq!(decode_meter_config(&c(-1, -1, -1, -1)).unwrap(), None);
        assert_eq!(
            decode_meter_config(&c(10, 2, 20, 4)).unwrap(),
            Some(MeterConfig { cir: 10, cburst: 2, pir: 20, pburst: 4 })
        );
        assert!(decode_meter_config(&c(-1, 2, 20, 4)).is_err());
        assert!(decode_meter_config(&c(30, 2, 20, 4)).is_err());
    }
}
