//! The plan's record of each table: what applying a table with state reads
//! per packet — its key as slot copies, which per-entry effects it has, and
//! its successors as step indices — in one small struct per table, next to
//! the others. The program's `Table` (~350 bytes with names, const entries
//! and vectors) spreads those over several cache lines, and a routed
//! vrouter.p4 packet applies ~15 such tables.

use super::flow::{index, END};
use crate::program::*;

/// "Not given" (no `__HIT__` / `__MISS__` successor): fall through to the
/// action's successor, then the default one.
pub const UNSET: u32 = END - 1;

/// One key limb copied from a header-vector slot, masked.
#[derive(Debug, Clone, Copy)]
pub struct KeyLimb {
    pub slot: u32,
    pub off: u32,
    pub mask: u64,
}

#[derive(Debug, Clone, Copy)]
pub struct TableRec {
    /// `Tables::keys[key..key + nkey]`. `general`: applied through the
    /// program's `Table` instead (a key part that is not a slot copy, such
    /// as a validity bit, or counts beyond this record's fields).
    pub key: u32,
    pub nkey: u16,
    pub key_limbs: u16,
    pub general: bool,
    /// Direct counter, idle timeout, direct meter or action profile.
    pub counter: bool,
    pub timeout: bool,
    pub meter: bool,
    pub profile: bool,
    /// Successor steps ([`UNSET`]: not given; [`END`]: pipeline done).
    pub next_hit: u32,
    pub next_miss: u32,
    pub next_default: u32,
    /// `Tables::by_action[by_action..by_action + n_by_action]`: (action, step).
    pub by_action: u32,
    pub n_by_action: u16,
}

pub struct Tables {
    pub recs: Vec<TableRec>,
    pub keys: Vec<KeyLimb>,
    pub by_action: Vec<(u32, u32)>,
}

pub fn build(p: &Prog) -> Tables {
    let mut keys = Vec::new();
    let mut by_action = Vec::new();
    let mut recs = Vec::with_capacity(p.tables.len());
    for t in &p.tables {
        let key = keys.len() as u32;
        let mut general = false;
        for k in &t.keys {
            match &k.src {
                // (a key wider than its field reads zeros past it in `build_key`)
                KeySource::Field(f) if f.nlimbs() == k.nlimbs as usize => {
                    for i in 0..k.nlimbs {
                        // (`build_key` masks only the limbs its mask has)
                        let mask = k.mask.as_ref().map_or(u64::MAX, |m| m.get(i as usize).copied().unwrap_or(u64::MAX));
                        keys.push(KeyLimb { slot: f.slot + i, off: k.off + i, mask });
                    }
                }
                _ => general = true,
            }
        }
        let nkey = keys.len() as u32 - key;
        let ba = by_action.len() as u32;
        by_action.extend(t.next_by_action.iter().map(|(a, n)| (*a as u32, index(p, *n))));
        let n_by_action = by_action.len() as u32 - ba;
        let next = |n: Option<Option<Node>>| n.map_or(UNSET, |n| index(p, n));
        recs.push(TableRec {
            key,
            nkey: u16::try_from(nkey).unwrap_or(0),
            key_limbs: u16::try_from(t.key_limbs).unwrap_or(u16::MAX),
            general: general || nkey > u16::MAX as u32 || t.key_limbs > u16::MAX as u32 || n_by_action > u16::MAX as u32,
            counter: t.direct_counter.is_some(),
            timeout: t.support_timeout,
            meter: t.direct_meter.is_some(),
            profile: t.profile.is_some(),
            next_hit: next(t.next_hit),
            next_miss: next(t.next_miss),
            next_default: index(p, t.base_default_next),
            by_action: ba,
            n_by_action: u16::try_from(n_by_action).unwrap_or(0),
        });
    }
    Tables { recs, keys, by_action }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_record_fits_half_a_cache_line() {
        assert!(std::mem::size_of::<super::TableRec>() <= 32, "{}", std::mem::size_of::<super::TableRec>());
    }
}
