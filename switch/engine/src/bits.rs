//! Bit-level helpers: big-endian bit fields in byte buffers, limb vectors for
//! wide values, and conversions between byte strings, limbs and `BigInt`.
//!
//! No-panic contract: every function checks its bounds; out-of-range reads
//! return `None` (or zero-fill where documented), never index out of bounds.

use num_bigint::{BigInt, Sign};

/// Number of u64 limbs used to store a field of `width` bits (at least 1).
#[inline]
pub fn limbs(width: u32) -> usize {
    (width.max(1) as usize).div_ceil(64)
}

/// Mask of the low `width` bits (`width` <= 64).
#[inline]
pub fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Mask of the low `width` bits (`width` <= 128).
#[inline]
pub fn mask128(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Reads `width` (<= 64) bits at bit offset `bit_off` (big-endian bit order)
/// from `buf`. `None` if the range does not lie inside `buf`.
#[inline]
pub fn get_bits(buf: &[u8], bit_off: usize, width: u32) -> Option<u64> {
    if width == 0 {
        return Some(0);
    }
    let end = bit_off.checked_add(width as usize)?;
    if end > buf.len() * 8 {
        return None;
    }
    let first = bit_off / 8;
    if width <= 64 {
        if let Some(win) = buf.get(first..first + 16) {
            // one unaligned 128-bit big-endian load covers any <= 64-bit field
            let mut a = [0u8; 16];
            a.copy_from_slice(win);
            let v = u128::from_be_bytes(a) >> (128 - (bit_off % 8) - width as usize);
            return Some(v as u64 & mask64(width));
        }
    }
    if (bit_off | width as usize) & 7 == 0 {
        // byte-aligned fast path
        let s = bit_off / 8;
        let mut acc: u64 = 0;
        for &b in &buf[s..end / 8] {
            acc = (acc << 8) | b as u64;
        }
        return Some(acc);
    }
    let last = (end - 1) / 8;
    let mut acc: u128 = 0;
    for &b in &buf[first..=last] {
        acc = (acc << 8) | b as u128;
    }
    let total = (last - first + 1) * 8;
    let shift = total - (bit_off % 8) - width as usize;
    Some(((acc >> shift) as u64) & mask64(width))
}

/// Writes the low `width` (<= 64) bits of `v` at bit offset `bit_off`. Returns
/// false (and writes nothing) if the range is outside `buf`.
#[cfg(test)] // the packet path writes through BitWriter; tests round-trip get_bits
pub fn set_bits(buf: &mut [u8], bit_off: usize, width: u32, v: u64) -> bool {
    if width == 0 {
        return true;
    }
    let Some(end) = bit_off.checked_add(width as usize) else { return false };
    if end > buf.len() * 8 {
        return false;
    }
    if (bit_off | width as usize) & 7 == 0 {
        let s = bit_off / 8;
        let mut x = v;
        for b in buf[s..end / 8].iter_mut().rev() {
            *b = x as u8;
            x >>= 8;
        }
        return true;
    }
    let first = bit_off / 8;
    let last = (end - 1) / 8;
    let total = (last - first + 1) * 8;
    let shift = total - (bit_off % 8) - width as usize;
    let mut acc: u128 = 0;
    for &b in &buf[first..=last] {
        acc = (acc << 8) | b as u128;
    }
    let m = (mask64(width) as u128) << shift;
    acc = (acc & !m) | (((v & mask64(width)) as u128) << shift);
    for i in (first..=last).rev() {
        buf[i] = acc as u8;
        acc >>= 8;
    }
    true
}

/// Reads a field of any width into little-endian limbs `out` (len = limbs(width)).
pub fn get_bits_wide(buf: &[u8], bit_off: usize, width: u32, out: &mut [u64]) -> bool {
    if bit_off.checked_add(width as usize).is_none_or(|e| e > buf.len() * 8) {
        return false;
    }
    let mut remaining = width;
    let mut i = 0;
    // Lowest limb holds the last 64 bits.
    while remaining > 0 && i < out.len() {
        let w = remaining.min(64);
        let off = bit_off + (remaining - w) as usize;
        out[i] = get_bits(buf, off, w).unwrap_or(0);
        remaining -= w;
        i += 1;
    }
    for o in out.iter_mut().skip(i) {
        *o = 0;
    }
    true
}

/// Writes little-endian limbs `v` as a `width`-bit big-endian field.
#[cfg(test)]
pub fn set_bits_wide(buf: &mut [u8], bit_off: usize, width: u32, v: &[u64]) -> bool {
    if bit_off.checked_add(width as usize).is_none_or(|e| e > buf.len() * 8) {
        return false;
    }
    let mut remaining = width;
    let mut i = 0;
    while remaining > 0 {
        let w = remaining.min(64);
        let off = bit_off + (remaining - w) as usize;
        set_bits(buf, off, w, v.get(i).copied().unwrap_or(0));
        remaining -= w;
        i += 1;
    }
    true
}

/// Big-endian bytes -> little-endian limbs (`n` limbs, truncating high bits
/// beyond `n * 64`).
pub fn bytes_to_limbs(bytes: &[u8], out: &mut [u64]) {
    for o in out.iter_mut() {
        *o = 0;
    }
    for (i, &b) in bytes.iter().rev().enumerate() {
        let limb = i / 8;
        if limb >= out.len() {
            break;
        }
        out[limb] |= (b as u64) << ((i % 8) * 8);
    }
}

/// Little-endian limbs -> big-endian bytes of exactly `(width + 7) / 8` bytes.
pub fn limbs_to_bytes(limbs_in: &[u64], width: u32) -> Vec<u8> {
    let n = (width as usize).div_ceil(8);
    let mut out = vec![0u8; n];
    for i in 0..n {
        let limb = i / 8;
        let b = limbs_in.get(limb).map_or(0, |l| (l >> ((i % 8) * 8)) as u8);
        out[n - 1 - i] = b;
    }
    if !width.is_multiple_of(8) && n > 0 {
        out[0] &= (1u8 << (width % 8)) - 1;
    }
    out
}

/// Number of significant bits of a big-endian byte string.
pub fn bitlen_bytes(bytes: &[u8]) -> u32 {
    for (i, &b) in bytes.iter().enumerate() {
        if b != 0 {
            return ((bytes.len() - i) * 8) as u32 - b.leading_zeros();
        }
    }
    0
}

/// Keeps the top `plen` bits of a `width`-bit value in limbs `v`.
#[inline]
pub fn apply_prefix(v: &mut [u64], width: u32, plen: u32) {
    let low = width.saturating_sub(plen); // number of low bits to clear
    for (i, l) in v.iter_mut().enumerate() {
        let lo = i as u32 * 64;
        if low >= lo + 64 {
            *l = 0;
        } else if low > lo {
            *l &= !mask64(low - lo);
        }
    }
}

/// Mask limbs in place to `width` bits.
pub fn mask_limbs(v: &mut [u64], width: u32) {
    for (i, l) in v.iter_mut().enumerate() {
        let lo = i as u32 * 64;
        if lo >= width {
            *l = 0;
        } else if width - lo < 64 {
            *l &= mask64(width - lo);
        }
    }
}

/// Parses a BMv2 hexstr (`"0x0a0b"`, `"-0x1"`, also plain decimal) into a BigInt.
pub fn parse_hexstr(s: &str) -> Option<BigInt> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() {
            return None;
        }
        BigInt::parse_bytes(h.as_bytes(), 16)?
    } else {
        if body.is_empty() {
            return None;
        }
        BigInt::parse_bytes(body.as_bytes(), 10)?
    };
    Some(if neg { -v } else { v })
}

/// BigInt -> little-endian limbs of `width` bits, two's complement truncated.
pub fn big_to_limbs(v: &BigInt, width: u32, out: &mut [u64]) {
    let digits = v.to_u64_digits().1;
    let neg = v.sign() == Sign::Minus;
    // two's complement: for negative, invert (|v| - 1)
    if neg {
        let m1 = (-v) - 1u32;
        let d = m1.to_u64_digits().1;
        for (i, o) in out.iter_mut().enumerate() {
            *o = !d.get(i).copied().unwrap_or(0);
        }
    } else {
        for (i, o) in out.iter_mut().enumerate() {
            *o = digits.get(i).copied().unwrap_or(0);
        }
    }
    mask_limbs(out, width);
}

/// Unsigned limbs -> BigInt.
pub fn limbs_to_big(v: &[u64]) -> BigInt {
    BigInt::from_slice(
        Sign::Plus,
        &v.iter().flat_map(|l| [*l as u32, (*l >> 32) as u32]).collect::<Vec<u32>>(),
    )
}

/// BigInt truncated to `width` bits as a non-negative value (two's complement).
pub fn big_trunc(v: &BigInt, width: u32) -> BigInt {
    let mut l = vec![0u64; limbs(width)];
    big_to_limbs(v, width, &mut l);
    limbs_to_big(&l)
}

/// BigInt -> i128, if it fits.
pub fn big_to_i128(v: &BigInt) -> Option<i128> {
    use num_traits::ToPrimitive;
    v.to_i128()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_set_bits_roundtrip() {
        let mut b = [0u8; 6];
        assert!(set_bits(&mut b, 4, 12, 0xabc));
        assert_eq!(b[0], 0x0a);
        assert_eq!(b[1], 0xbc);
        assert_eq!(get_bits(&b, 4, 12), Some(0xabc));
        assert!(set_bits(&mut b, 3, 64 - 24, 0x12_3456_789a));
        assert_eq!(get_bits(&b, 3, 40), Some(0x12_3456_789a));
        assert_eq!(get_bits(&b, 40, 9), None);
        assert!(!set_bits(&mut b, 47, 2, 1));
    }

    #[test]
    fn wide_roundtrip() {
        let mut buf = [0u8; 17];
        let v = [0x1122334455667788u64, 0x99aabbccddeeff00];
        assert!(set_bits_wide(&mut buf, 4, 128, &v));
        let mut out = [0u64; 2];
        assert!(get_bits_wide(&buf, 4, 128, &mut out));
        assert_eq!(out, v);
        assert!(!get_bits_wide(&buf, 8, 129, &mut out));
    }

    #[test]
    fn hexstr_and_big() {
        assert_eq!(parse_hexstr("0x10"), Some(BigInt::from(16)));
        assert_eq!(parse_hexstr("-0x1"), Some(BigInt::from(-1)));
        assert_eq!(parse_hexstr("0x"), None);
        assert_eq!(parse_hexstr("zz"), None);
        let mut l = [0u64; 2];
        big_to_limbs(&BigInt::from(-1), 70, &mut l);
        assert_eq!(l, [u64::MAX, 0x3f]);
        assert_eq!(limbs_to_bytes(&[0x1234], 12), vec![0x02, 0x34]);
        let mut o = [0u64; 1];
        bytes_to_limbs(&[0x01, 0x02], &mut o);
        assert_eq!(o[0], 0x0102);
    }
}

/// Appends big-endian bit fields to a byte vector (streaming; a final partial
/// byte is padded with zero bits by `finish`).
pub struct BitWriter<'a> {
    pub out: &'a mut Vec<u8>,
    acc: u128,
    n: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> BitWriter<'a> {
        BitWriter { out, acc: 0, n: 0 }
    }

    /// Appends the low `width` (<= 64) bits of `v`.
    #[inline]
    pub fn put(&mut self, width: u32, v: u64) {
        if width == 0 {
            return;
        }
        let w = width.min(64);
        // invariant: self.n < 64, so the accumulator never overflows
        self.acc = (self.acc << w) | (v & mask64(w)) as u128;
        self.n += w;
        if self.n >= 64 {
            self.n -= 64;
            let word = (self.acc >> self.n) as u64;
            self.out.extend_from_slice(&word.to_be_bytes());
            self.acc &= (1u128 << self.n) - 1;
        }
    }

    /// Appends a field stored as little-endian limbs.
    pub fn put_limbs(&mut self, width: u32, v: &[u64]) {
        if width <= 64 {
            self.put(width, v.first().copied().unwrap_or(0));
            return;
        }
        let top = width % 64;
        let nl = limbs(width);
        for i in (0..nl).rev() {
            let w = if i == nl - 1 && top != 0 { top } else { 64 };
            self.put(w, v.get(i).copied().unwrap_or(0));
        }
    }

    /// Pads the last partial byte with zeros.
    pub fn finish(&mut self) {
        while self.n >= 8 {
            self.n -= 8;
            self.out.push((self.acc >> self.n) as u8);
        }
        if self.n > 0 {
            self.out.push((self.acc << (8 - self.n)) as u8);
        }
        self.n = 0;
        self.acc = 0;
    }
}

#[cfg(test)]
mod writer_tests {
    use super::*;

    #[test]
    fn bit_writer_packs_fields() {
        let mut v = Vec::new();
        let mut w = BitWriter::new(&mut v);
        w.put(4, 0x4);
        w.put(4, 0x5);
        w.put(3, 0x2);
        w.put(13, 0x1abc);
        w.put_limbs(72, &[0x1122334455667788, 0x99]);
        w.put(1, 1);
        w.finish();
        assert_eq!(v, vec![0x45, 0x5a, 0xbc, 0x99, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x80]);
    }
}

#[cfg(test)]
mod get_bits_tests {
    use super::*;

    #[test]
    fn windowed_and_tail_reads_agree() {
        let buf: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for off in 0..(buf.len() * 8) {
            for w in [1u32, 3, 8, 13, 16, 31, 48, 63, 64] {
                let got = get_bits(&buf, off, w);
                // reference: bit by bit
                let want = if off + w as usize > buf.len() * 8 {
                    None
                } else {
                    let mut v = 0u64;
                    for b in off..off + w as usize {
                        v = (v << 1) | ((buf[b / 8] >> (7 - b % 8)) & 1) as u64;
                    }
                    Some(v)
                };
                assert_eq!(got, want, "off {off} width {w}");
            }
        }
    }
}
