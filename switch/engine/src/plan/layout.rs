//! Fixed byte layouts: a header (or a calculation's field list) whose
//! fields all fit one big-endian 64-bit word each, read and written as one
//! load / shift / mask per field instead of bit by bit.
//!
//! The general path (`bits::get_bits`, `bits::BitWriter`) walks the bit
//! stream field by field; here each field's byte offset and shift are
//! constants computed once, so extracting IPv4 is ~12 word loads and
//! emitting it ~12 read-or-writes into a zeroed scratch block. Results are
//! byte for byte those of the general path (the tests at the bottom compare
//! them), which stays the interpreter's.

use crate::bits::mask64;
use crate::program::*;

/// Largest block handled here (bytes); bigger headers take the general path.
pub const MAX_BYTES: usize = 120;
/// Scratch block size: the largest block plus one word of slack.
pub const BLOCK: usize = MAX_BYTES + 8;

/// One field: `value = (be_u64(block[byte..byte + 8]) >> shift) & mask`
/// (`width` bits; a calculation's constant input has slot [`CONST`]).
#[derive(Debug, Clone, Copy)]
pub struct FieldOp {
    pub slot: u32,
    pub byte: u32,
    pub shift: u32,
    pub width: u32,
    pub mask: u64,
}

/// The slot of a calculation's constant input (its value is in `CalcLayout::consts`).
pub const CONST: u32 = u32::MAX;

/// A fixed layout of `bytes` bytes (the bit length rounded up, as the
/// general path pads the last byte with zeros).
#[derive(Debug, Clone)]
pub struct Layout {
    pub bytes: u32,
    pub fields: Vec<FieldOp>,
}

impl Layout {
    /// The layout of consecutive fields of the given widths, if every field
    /// is at most 64 bits wide and fits one word from its first byte.
    fn of(fields: impl Iterator<Item = (u32, u32)>) -> Option<Layout> {
        let mut bit = 0u32;
        let mut ops = Vec::new();
        for (slot, width) in fields {
            let in_byte = bit % 8;
            if width == 0 || width > 64 || in_byte + width > 64 {
                return None;
            }
            ops.push(FieldOp { slot, byte: bit / 8, shift: 64 - in_byte - width, width, mask: mask64(width) });
            bit = bit.checked_add(width)?;
        }
        let bytes = bit.div_ceil(8);
        if bytes as usize > MAX_BYTES {
            return None;
        }
        Some(Layout { bytes, fields: ops })
    }

    /// A header with only fixed fields of at most 64 bits.
    pub fn header(h: &Header) -> Option<Layout> {
        if h.varbit_field.is_some() || h.fields.iter().any(|f| f.varbit) {
            return None;
        }
        Layout::of(h.fields.iter().map(|f| (f.slot, f.width)))
    }

    /// Reads the fields from `data` (at least `bytes` long) into `hv`.
    #[inline]
    pub fn extract(&self, data: &[u8], hv: &mut [u64]) {
        let mut block = [0u8; BLOCK];
        let n = (self.bytes as usize).min(data.len());
        block[..n].copy_from_slice(&data[..n]);
        for f in &self.fields {
            let v = (word(&block, f.byte) >> f.shift) & f.mask;
            if let Some(x) = hv.get_mut(f.slot as usize) {
                *x = v;
            }
        }
    }

    /// Writes the fields of `hv` as `bytes` bytes into `block`.
    #[inline]
    pub fn fill(&self, hv: &[u64], block: &mut [u8; BLOCK]) {
        write_bits(&self.fields, block, |f| hv.get(f.slot as usize).copied().unwrap_or(0) & f.mask);
    }

    /// Appends the fields of `hv` to `out`.
    #[inline]
    pub fn emit(&self, hv: &[u64], out: &mut Vec<u8>) {
        let mut block = [0u8; BLOCK];
        self.fill(hv, &mut block);
        out.extend_from_slice(&block[..self.bytes as usize]);
    }
}

/// Writes consecutive fields (`value(op)`, at most `width` bits each) as one
/// bit stream from the start of `block`, the last byte padded with zeros.
///
/// The bits gather in a register and leave it as whole 8-byte words, each
/// stored once: OR-ing each field into the block's overlapping words made
/// every field's load wait on the previous field's store, which the CPU
/// cannot forward (a partial overlap) — perf put most of the deparser's
/// and checksums' time on that.
#[inline(always)]
fn write_bits(ops: &[FieldOp], block: &mut [u8; BLOCK], mut value: impl FnMut(&FieldOp) -> u64) {
    let mut acc: u128 = 0;
    let mut nbits = 0u32;
    let mut pos = 0usize;
    for f in ops {
        let w = f.width.min(64);
        acc = (acc << w) | value(f) as u128;
        nbits += w;
        if nbits >= 64 {
            nbits -= 64;
            if let Some(d) = block.get_mut(pos..pos + 8) {
                d.copy_from_slice(&((acc >> nbits) as u64).to_be_bytes());
            }
            pos += 8;
        }
    }
    if nbits > 0 {
        if let Some(d) = block.get_mut(pos..pos + 8) {
            d.copy_from_slice(&(((acc as u64) << (64 - nbits)).to_be_bytes()));
        }
    }
}

#[inline(always)]
fn word(block: &[u8; BLOCK], byte: u32) -> u64 {
    let b = byte as usize;
    let mut w = [0u8; 8];
    w.copy_from_slice(&block[b..b + 8]);
    u64::from_be_bytes(w)
}

/// A calculation whose inputs are all fields of at most 64 bits (no whole
/// header, no constant wider than 64 bits, no payload): the bytes it hashes
/// are `layout`, provided every header in `needs` is valid (an invalid
/// header's fields are left out, which moves the others: general path).
#[derive(Debug, Clone)]
pub struct CalcLayout {
    pub layout: Layout,
    pub needs: Vec<u32>,
    /// Values of the constant inputs (the ops of slot [`CONST`]), in order.
    pub consts: Vec<u64>,
}

impl CalcLayout {
    pub fn of(c: &Calculation) -> Option<CalcLayout> {
        let mut needs = Vec::new();
        let mut widths = Vec::new();
        let mut consts = Vec::new();
        for (i, inp) in c.input.iter().enumerate() {
            match inp {
                CalcInput::Field(f) if !f.varbit => {
                    if let Some(h) = c.input_headers.get(i).copied().flatten() {
                        let h = u32::try_from(h).ok()?;
                        if !needs.contains(&h) {
                            needs.push(h);
                        }
                    }
                    widths.push((f.slot, f.width, None));
                }
                CalcInput::Const { value, width } if *width <= 64 => {
                    widths.push((CONST, *width, Some(value.first().copied().unwrap_or(0) & mask64(*width))));
                }
                _ => return None,
            }
        }
        let layout = Layout::of(widths.iter().map(|(s, w, _)| (*s, *w)))?;
        consts.extend(widths.iter().filter_map(|(_, _, k)| *k));
        Some(CalcLayout { layout, needs, consts })
    }

    /// The bytes to hash, in `block[..layout.bytes]`.
    #[inline]
    pub fn fill(&self, hv: &[u64], block: &mut [u8; BLOCK]) {
        let mut consts = self.consts.iter();
        write_bits(&self.layout.fields, block, |f| match f.slot {
            CONST => consts.next().copied().unwrap_or(0),
            s => hv.get(s as usize).copied().unwrap_or(0) & f.mask,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{get_bits, BitWriter};

    fn lcg(s: &mut u64) -> u64 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *s ^ (*s >> 29)
    }

    /// Extract and emit agree with get_bits / BitWriter on random layouts and values.
    #[test]
    fn agrees_with_the_bit_stream() {
        let mut s = 7u64;
        for round in 0..2000 {
            let n = 1 + (lcg(&mut s) % 12) as usize;
            let widths: Vec<u32> = (0..n).map(|_| 1 + (lcg(&mut s) % 64) as u32).collect();
            let Some(lay) = Layout::of(widths.iter().enumerate().map(|(i, w)| (i as u32, *w))) else { continue };
            let mut data: Vec<u8> = (0..lay.bytes as usize + (round % 3)).map(|_| lcg(&mut s) as u8).collect();
            if round % 2 == 0 {
                data.truncate(lay.bytes as usize);
            }
            let mut hv = vec![0u64; n];
            lay.extract(&data, &mut hv);
            let mut bit = 0usize;
            for (i, w) in widths.iter().enumerate() {
                assert_eq!(hv[i], get_bits(&data, bit, *w).unwrap(), "{widths:?} field {i}");
                bit += *w as usize;
            }
            // emit: values with bits above the width are masked
            let vals: Vec<u64> = (0..n).map(|_| lcg(&mut s)).collect();
            let mut a = Vec::new();
            lay.emit(&vals, &mut a);
            let mut b = Vec::new();
            let mut bw = BitWriter::new(&mut b);
            for (i, w) in widths.iter().enumerate() {
                bw.put(*w, vals[i]);
            }
            bw.finish();
            assert_eq!(a, b, "{widths:?}");
        }
    }

    /// A calculation's block (fields and constants interleaved) is the bit
    /// stream of its inputs in order.
    #[test]
    fn calc_block_agrees_with_the_bit_stream() {
        let mut s = 11u64;
        for _ in 0..2000 {
            let n = 1 + (lcg(&mut s) % 10) as usize;
            let mut input = Vec::new();
            let mut want = Vec::new();
            let hv: Vec<u64> = (0..n).map(|_| lcg(&mut s)).collect();
            let mut bw = BitWriter::new(&mut want);
            for (i, v) in hv.iter().enumerate() {
                let width = 1 + (lcg(&mut s) % 64) as u32;
                if lcg(&mut s) % 3 == 0 {
                    let k = lcg(&mut s);
                    input.push(CalcInput::Const { value: vec![k], width });
                    bw.put(width, k);
                } else {
                    input.push(CalcInput::Field(FieldSlot { slot: i as u32, width, signed: false, varbit: false }));
                    bw.put(width, *v);
                }
            }
            bw.finish();
            let c = Calculation { algo: crate::hash::Algo::Csum16, input_headers: vec![None; n], input };
            let Some(cal) = CalcLayout::of(&c) else { continue };
            let mut block = [0u8; BLOCK];
            cal.fill(&hv, &mut block);
            assert_eq!(&block[..cal.layout.bytes as usize], &want[..]);
        }
    }

    #[test]
    fn refuses_what_it_cannot_do() {
        assert!(Layout::of([(0, 4), (1, 64)].into_iter()).is_none());
        assert!(Layout::of([(0, 65)].into_iter()).is_none());
        assert!(Layout::of((0..20).map(|i| (i, 64))).is_none());
        assert!(Layout::of([(0, 4), (1, 60), (2, 3)].into_iter()).is_some());
    }
}
