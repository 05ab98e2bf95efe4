//! Parser `select`s whose key fits one 64-bit word (fields and lookaheads
//! of at most 64 bits in all, no value sets): the key is built with a shift
//! and an OR per part and each transition is one masked compare, instead of
//! the general path's limb vectors (`exec::parser::select`), which stays
//! the interpreter's. Almost every real parser state is like this (an
//! EtherType, an IP protocol, a port).

use crate::program::*;

/// One key part: where its value comes from, and how far it is shifted
/// into the key (the byte-padded widths of the parts after it).
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// A field's slot (its value is stored masked to its width).
    Field { slot: u32, shift: u32 },
    /// `width` bits at `off` bits after the cursor (0 past the end of the
    /// packet, as the general path reads them).
    Lookahead { off: u32, width: u32, shift: u32 },
}

/// A state's select over a one-word key.
#[derive(Debug, Clone)]
pub struct Select {
    pub parts: Vec<Part>,
    /// In order: the key matches when `key & mask == value` (`value` is
    /// already masked; default: mask 0).
    pub trans: Vec<(u64, u64, Option<usize>)>,
}

impl Select {
    /// The one-word form of a state's select, if it has one (a non-empty
    /// key of at most 64 bits, no value sets).
    pub fn of(st: &ParseState) -> Option<Select> {
        if st.key.is_empty() || st.key_bits == 0 || st.key_bits > 64 || st.key.len() != st.key_widths.len() {
            return None;
        }
        let mut parts = Vec::with_capacity(st.key.len());
        let mut after: u32 = st.key_bits;
        for (k, &pw) in st.key.iter().zip(&st.key_widths) {
            after = after.checked_sub(pw)?;
            parts.push(match *k {
                KeyPart::Field(f) if f.width <= 64 && f.width <= pw && !f.varbit => Part::Field { slot: f.slot, shift: after },
                KeyPart::Lookahead { off, width } if width <= 64 && width <= pw => Part::Lookahead { off, width, shift: after },
                _ => return None,
            });
        }
        let mut trans = Vec::with_capacity(st.transitions.len());
        for t in &st.transitions {
            trans.push(match &t.value {
                TransValue::Default => (0, 0, t.next),
                TransValue::Hex { value, mask } => {
                    let [v] = value[..] else { return None };
                    let m = match mask.as_deref() {
                        None => u64::MAX,
                        Some(&[m]) => m,
                        Some(_) => return None,
                    };
                    (v & m, m, t.next)
                }
                TransValue::Vset { .. } => return None,
            });
        }
        Some(Select { parts, trans })
    }

    /// The next state for this packet at `cursor` (bytes), or `None` when no
    /// transition matches (`NoMatch`).
    #[inline]
    pub fn next(&self, hv: &[u64], data: &[u8], cursor: usize) -> Option<Option<usize>> {
        let mut key = 0u64;
        for p in &self.parts {
            key |= match *p {
                Part::Field { slot, shift } => hv.get(slot as usize).copied().unwrap_or(0).checked_shl(shift).unwrap_or(0),
                Part::Lookahead { off, width, shift } => {
                    let start = cursor.saturating_mul(8).saturating_add(off as usize);
                    crate::bits::get_bits(data, start, width).unwrap_or(0).checked_shl(shift).unwrap_or(0)
                }
            };
        }
        self.trans.iter().find(|(v, m, _)| key & m == *v).map(|t| t.2)
    }
}
