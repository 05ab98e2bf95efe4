//! Parser value sets: P4Runtime `ValueSetEntry` members (one FieldMatch per
//! key part) to and from the engine's (value, mask) pairs, where the key parts
//! are concatenated into one number, first part in the most significant bits.

use crate::canonical;
use crate::error::{RtError, RtResult};
use crate::packetio::{get_bits, put_bits};
use crate::proto::p4::v1 as p4v1;
use crate::schema::{MatchKind, ValueSetS};
use p4v1::field_match::FieldMatchType as F;

fn layout(vs: &ValueSetS) -> (usize, Vec<usize>) {
    let total = vs.total_bits() as usize;
    let n = total.div_ceil(8).max(1);
    let mut pos = n * 8 - total;
    let mut starts = Vec::with_capacity(vs.fields.len());
    for f in &vs.fields {
        starts.push(pos);
        pos += f.bitwidth as usize;
    }
    (n, starts)
}

/// The engine's (value, mask) pairs for `members` (mask None: all parts exact).
pub fn encode_members(vs: &ValueSetS, members: &[p4v1::ValueSetMember]) -> RtResult<Vec<(Vec<u8>, Option<Vec<u8>>)>> {
    let (n, starts) = layout(vs);
    let mut out = Vec::with_capacity(members.len());
    for (mi, m) in members.iter().enumerate() {
        let mut value = vec![0u8; n];
        let mut mask = vec![0u8; n];
        let mut seen = vec![false; vs.fields.len()];
        let mut exact_only = true;
        for fm in &m.r#match {
            let i = vs.fields.iter().position(|f| f.id == fm.field_id).ok_or_else(|| {
                RtError::invalid(format!("value set '{}': unknown match field id {}", vs.name, fm.field_id))
            })?;
            let f = &vs.fields[i];
            let what = || format!("value set '{}' member {mi} field '{}'", vs.name, f.name);
            if std::mem::replace(&mut seen[i], true) {
                return Err(RtError::invalid(format!("{}: given twice", what())));
            }
            let (v, mk) = match (&fm.field_match_type, f.kind) {
                (Some(F::Exact(e)), _) => (e.value.clone(), canonical::all_ones(f.bitwidth)),
                (Some(F::Ternary(t)), MatchKind::Ternary) => {
                    exact_only = false;
                    (t.value.clone(), t.mask.clone())
                }
                _ => return Err(RtError::invalid(format!("{}: wrong match kind", what()))),
            };
            for x in [&v, &mk] {
                canonical::fits(x, f.bitwidth).map_err(|e| RtError::width(what(), e))?;
            }
            let (v, mk) = (canonical::to_width(&v, f.bitwidth), canonical::to_width(&mk, f.bitwidth));
            if canonical::has_bits_outside(&v, &mk) {
                return Err(RtError::invalid(format!("{}: value has bits set outside the mask", what())));
            }
            put_bits(&mut value, starts[i], f.bitwidth, &v);
            put_bits(&mut mask, starts[i], f.bitwidth, &mk);
        }
        for (i, f) in vs.fields.iter().enumerate() {
            if !seen[i] {
                if f.kind == MatchKind::Exact {
                    return Err(RtError::invalid(format!("value set '{}' member {mi}: field '{}' is missing", vs.name, f.name)));
                }
                exact_only = false; // omitted ternary part: wildcard
            }
        }
        out.push((value, if exact_only { None } else { Some(mask) }));
    }
    Ok(out)
}

/// The P4Runtime members of the engine's (value, mask) pairs.
pub fn decode_members(vs: &ValueSetS, values: &[(Vec<u8>, Vec<u8>)]) -> Vec<p4v1::ValueSetMember> {
    use p4v1::field_match as fm;
    let (n, starts) = layout(vs);
    let total = vs.total_bits();
    values
        .iter()
        .map(|(v, m)| {
            let (v, m) = (canonical::to_width(v, total), canonical::to_width(m, total));
            debug_assert_eq!(v.len(), n);
            let r#match = vs
                .fields
                .iter()
                .zip(&starts)
                .filter_map(|(f, &pos)| {
                    let fv = canonical::canonical(&get_bits(&v, pos, f.bitwidth));
                    let fmk = get_bits(&m, pos, f.bitwidth);
                    let t = match f.kind {
                        MatchKind::Ternary if fmk.iter().all(|&b| b == 0) => return None,
                        MatchKind::Ternary => F::Ternary(fm::Ternary { value: fv, mask: canonical::canonical(&fmk) }),
                        _ => F::Exact(fm::Exact { value: fv }),
                    };
                    Some(p4v1::FieldMatch { field_id: f.id, field_match_type: Some(t) })
                })
                .collect();
            p4v1::ValueSetMember { r#match }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::MatchFieldS;

    fn vs() -> ValueSetS {
        let f = |id, bw, kind| MatchFieldS { id, name: format!("f{id}"), bitwidth: bw, kind, engine_pos: 0, optional_as_ternary: false };
        ValueSetS {
            id: 1,
            name: "pvs".into(),
            engine_name: "pvs".into(),
            fields: vec![f(1, 4, MatchKind::Exact), f(2, 8, MatchKind::Ternary)],
            size: 4,
        }
    }
    fn exact(id: u32, v: &[u8]) -> p4v1::FieldMatch {
        p4v1::FieldMatch { field_id: id, field_match_type: Some(F::Exact(p4v1::field_match::Exact { value: v.to_vec() })) }
    }
    fn tern(id: u32, v: &[u8], m: &[u8]) -> p4v1::FieldMatch {
        p4v1::FieldMatch {
            field_id: id,
            field_match_type: Some(F::Ternary(p4v1::field_match::Ternary { value: v.to_vec(), mask: m.to_vec() })),
        }
    }

    #[test]
    fn parts_are_concatenated_msb_first() {
        // 4-bit 0xa then 8-bit 0x5b: 12 bits 0xa5b in two bytes
        let m = p4v1::ValueSetMember { r#match: vec![exact(1, &[0x0a]), tern(2, &[0x5b], &[0xff])] };
        let got = encode_members(&vs(), &[m.clone()]).unwrap();
        assert_eq!(got, vec![(vec![0x0a, 0x5b], Some(vec![0x0f, 0xff]))]);
        let back = decode_members(&vs(), &[(vec![0x0a, 0x5b], vec![0x0f, 0xff])]);
        assert_eq!(back, vec![m]);
    }

    #[test]
    fn omitted_ternary_part_is_a_wildcard() {
        let got = encode_members(&vs(), &[p4v1::ValueSetMember { r#match: vec![exact(1, &[3])] }]).unwrap();
        assert_eq!(got, vec![(vec![0x03, 0x00], Some(vec![0x0f, 0x00]))]);
        let back = decode_members(&vs(), &[(vec![0x03, 0x00], vec![0x0f, 0x00])]);
        assert_eq!(back, vec![p4v1::ValueSetMember { r#match: vec![exact(1, &[3])] }]);
    }

    #[test]
    fn bad_members_are_refused() {
        let bad = [
            vec![exact(1, &[0x10])],                     // 5 bits in bit<4>
            vec![tern(2, &[1], &[1])],                   // exact part missing
            vec![exact(1, &[1]), exact(1, &[1])],        // twice
            vec![exact(9, &[1])],                        // unknown id
            vec![tern(1, &[1], &[1])],                   // ternary on an exact part
            vec![exact(1, &[1]), tern(2, &[3], &[1])],   // bits outside the mask
        ];
        for m in bad {
            assert!(encode_members(&vs(), &[p4v1::ValueSetMember { r#match: m.clone() }]).is_err(), "{m:?}");
        }
    }
}
