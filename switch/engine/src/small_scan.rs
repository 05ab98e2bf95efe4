//! The plan's structure for tables with few entries: a short scan over the
//! entries' (value, mask) limbs in match order, first match wins. With a
//! handful of entries a few masked compares on one or two cache lines cost
//! less than hashing the key and probing (exact, lpm) or than one probe per
//! mask group (ternary). Chosen per published snapshot (`TableState::seal`)
//! while the table holds at most [`MAX`] entries; the interpreter keeps the
//! reference indexes.
//!
//! Generic over what an entry leads to (`table::Entry`), so this module sits
//! below `table` and imports nothing of the crate.

use std::sync::Arc;

/// Most entries a table may hold to be scanned.
pub const MAX: usize = 8;

pub struct SmallScan<T> {
    /// Key limbs.
    n: usize,
    /// Per entry, in match order: its `n` value limbs, then its `n` mask limbs.
    vm: Box<[u64]>,
    /// Per entry, same order: where it leads, and whether it needs the
    /// caller's further check (range fields).
    to: Box<[(Arc<T>, bool)]>,
}

// (not derived: that would ask `T: Clone`; the scan clones pointers)
impl<T> Clone for SmallScan<T> {
    fn clone(&self) -> Self {
        SmallScan { n: self.n, vm: self.vm.clone(), to: self.to.clone() }
    }
}

impl<T> SmallScan<T> {
    /// A scan over `rows` (value, mask, needs a further check, target), given
    /// in match order; `None` if a row's limbs are not `n` long.
    pub fn new(n: usize, rows: Vec<(&[u64], &[u64], bool, Arc<T>)>) -> Option<SmallScan<T>> {
        let mut vm = Vec::with_capacity(2 * n * rows.len());
        let mut to = Vec::with_capacity(rows.len());
        for (v, m, check, t) in rows {
            if v.len() != n || m.len() != n {
                return None;
            }
            vm.extend(v.iter().zip(m).map(|(v, m)| v & m));
            vm.extend_from_slice(m);
            to.push((t, check));
        }
        Some(SmallScan { n, vm: vm.into(), to: to.into() })
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.to.len()
    }

    /// The first entry whose masked key equals its value (and that passes
    /// `check`, for the entries that need it). `key` has `n` limbs.
    #[inline]
    pub fn lookup(&self, key: &[u64], check: impl Fn(&T) -> bool) -> Option<&Arc<T>> {
        let n = self.n;
        if n == 1 {
            // the common key: one limb (a port, an address, a MAC)
            let k = *key.first()?;
            for (vm, (t, c)) in self.vm.chunks_exact(2).zip(self.to.iter()) {
                if k & vm[1] == vm[0] && (!*c || check(t)) {
                    return Some(t);
                }
            }
            return None;
        }
        let key = key.get(..n)?;
        for (vm, (t, c)) in self.vm.chunks_exact(2 * n.max(1)).zip(self.to.iter()) {
            let (v, m) = vm.split_at(n);
            if key.iter().zip(v).zip(m).all(|((k, v), m)| k & m == *v) && (!*c || check(t)) {
                return Some(t);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_match_in_order_wins() {
        let a = Arc::new('a');
        let b = Arc::new('b');
        let c = Arc::new('c');
        let rows = vec![
            (&[0x0a00_0001u64][..], &[u64::MAX][..], false, a.clone()),
            (&[0x0a00_0000][..], &[0xffff_ff00][..], true, b.clone()),
            (&[0][..], &[0][..], false, c.clone()),
        ];
        let s = SmallScan::new(1, rows).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.lookup(&[0x0a00_0001], |_| true), Some(&a));
        assert_eq!(s.lookup(&[0x0a00_0002], |_| true), Some(&b));
        assert_eq!(s.lookup(&[0x0a00_0002], |_| false), Some(&c), "the check refuses b");
        assert_eq!(s.lookup(&[0x0b00_0002], |_| true), Some(&c));
        assert_eq!(s.lookup(&[], |_| true), None);
        // two limbs
        let rows = vec![(&[1u64, 2][..], &[u64::MAX, 0xf][..], false, a.clone())];
        let s = SmallScan::new(2, rows).unwrap();
        assert_eq!(s.lookup(&[1, 0x12], |_| true), Some(&a));
        assert_eq!(s.lookup(&[1, 0x13], |_| true), None);
        assert!(SmallScan::new(2, vec![(&[1u64][..], &[1u64][..], false, a)]).is_none());
    }
}
