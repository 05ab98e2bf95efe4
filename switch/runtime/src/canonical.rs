//! P4Runtime byte strings: canonical (shortest) form and width checks.
//!
//! P4Runtime carries every bit<W> value as a big-endian byte string. A server
//! must accept any string whose value fits in W bits, padded with leading zero
//! bytes or not, and must answer with the canonical form: no leading zero
//! bytes, and a single zero byte for the value 0 (P4Runtime spec, "Bytestrings").

/// Why a byte string is not a valid bit<W> value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WidthError {
    /// The empty string is not a value.
    Empty,
    /// The value needs more than `bitwidth` bits.
    TooWide { bitwidth: u32, bits: u32 },
}

impl std::fmt::Display for WidthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WidthError::Empty => write!(f, "empty byte string"),
            WidthError::TooWide { bitwidth, bits } => {
                write!(f, "value needs {bits} bits, does not fit in bit<{bitwidth}>")
            }
        }
    }
}

/// The canonical form of `value`: leading zero bytes removed, `[0]` for zero.
pub fn canonical(value: &[u8]) -> Vec<u8> {
    match value.iter().position(|&b| b != 0) {
        Some(i) => value[i..].to_vec(),
        None => vec![0],
    }
}

/// Number of significant bits of a big-endian value (0 for zero).
pub fn significant_bits(value: &[u8]) -> u32 {
    match value.iter().position(|&b| b != 0) {
        Some(i) => (value.len() - i - 1) as u32 * 8 + (8 - value[i].leading_zeros()),
        None => 0,
    }
}

/// Checks that `value` is a valid bit<`bitwidth`> byte string (any padding) and
/// returns its canonical form.
pub fn check(value: &[u8], bitwidth: u32) -> Result<Vec<u8>, WidthError> {
    if value.is_empty() {
        return Err(WidthError::Empty);
    }
    let bits = significant_bits(value);
    if bits > bitwidth {
        return Err(WidthError::TooWide { bitwidth, bits });
    }
    Ok(canonical(value))
}

/// Checks that `value` is a valid bit<`bitwidth`> byte string, without
/// building its canonical form.
pub fn fits(value: &[u8], bitwidth: u32) -> Result<(), WidthError> {
    if value.is_empty() {
        return Err(WidthError::Empty);
    }
    let bits = significant_bits(value);
    if bits > bitwidth {
        return Err(WidthError::TooWide { bitwidth, bits });
    }
    Ok(())
}

/// `value` as exactly `(bitwidth + 7) / 8` bytes: the low bytes, zero-padded
/// (value must fit, see [`check`]).
pub fn to_width(value: &[u8], bitwidth: u32) -> Vec<u8> {
    let n = (bitwidth as usize).div_ceil(8).max(1);
    if value.len() >= n {
        return value[value.len() - n..].to_vec();
    }
    let mut out = vec![0u8; n];
    out[n - value.len()..].copy_from_slice(value);
    out
}

/// All-ones value of `bitwidth` bits, full width.
pub fn all_ones(bitwidth: u32) -> Vec<u8> {
    let n = (bitwidth as usize).div_ceil(8).max(1);
    let mut out = vec![0xffu8; n];
    let extra = (n * 8) as u32 - bitwidth;
    if extra > 0 && extra < 8 {
        out[0] = 0xff >> extra;
    }
    out
}

/// Mask of the `prefix_len` most significant bits of a `bitwidth`-bit value,
/// full width.
pub fn prefix_mask(bitwidth: u32, prefix_len: u32) -> Vec<u8> {
    let n = (bitwidth as usize).div_ceil(8).max(1);
    let mut out = vec![0u8; n];
    let lead = (n * 8) as u32 - bitwidth; // unused high bits of the first byte
    for bit in 0..prefix_len.min(bitwidth) {
        let pos = lead + bit; // from the most significant bit of out[0]
        out[(pos / 8) as usize] |= 0x80 >> (pos % 8);
    }
    out
}

/// True when `value & !mask` has any bit set (both full width of equal length).
pub fn has_bits_outside(value: &[u8], mask: &[u8]) -> bool {
    value.iter().zip(mask).any(|(v, m)| v & !m != 0)
}

/// Compares two big-endian values of any padding.
pub fn cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let a = canonical(a);
    let b = canonical(b);
    a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_strips_leading_zeros() {
        assert_eq!(canonical(&[0, 0, 0x0a, 0x01]), vec![0x0a, 0x01]);
        assert_eq!(canonical(&[0, 0]), vec![0]);
        assert_eq!(canonical(&[0x80]), vec![0x80]);
        assert_eq!(canonical(&[]), vec![0]);
    }

    #[test]
    fn check_accepts_padded_and_short_forms() {
        // bit<9> port 5 as 1 byte, 2 bytes, or 4 bytes
        assert_eq!(check(&[5], 9), Ok(vec![5]));
        assert_eq!(check(&[0, 5], 9), Ok(vec![5]));
        assert_eq!(check(&[0, 0, 0, 5], 9), Ok(vec![5]));
        assert_eq!(check(&[0x01, 0xff], 9), Ok(vec![0x01, 0xff]));
        assert_eq!(check(&[0], 1), Ok(vec![0]));
    }

    #[test]
    fn check_refuses_too_wide_and_empty() {
        assert_eq!(check(&[0x02, 0x00], 9), Err(WidthError::TooWide { bitwidth: 9, bits: 10 }));
        assert_eq!(check(&[0xff], 7), Err(WidthError::TooWide { bitwidth: 7, bits: 8 }));
        assert_eq!(check(&[], 8), Err(WidthError::Empty));
        // 48-bit MAC given as 7 bytes with a non-zero top byte
        assert!(check(&[1, 0, 0, 0, 0, 0, 0], 48).is_err());
    }

    #[test]
    fn fits_agrees_with_check() {
        for (v, w) in [(&[0u8, 5][..], 9u32), (&[2, 0], 9), (&[], 8), (&[0xff], 7), (&[0, 0, 0xff], 8)] {
            assert_eq!(fits(v, w).is_ok(), check(v, w).is_ok(), "{v:?} in bit<{w}>");
        }
    }

    #[test]
    fn significant_bits_counts() {
        assert_eq!(significant_bits(&[0]), 0);
        assert_eq!(significant_bits(&[1]), 1);
        assert_eq!(significant_bits(&[0, 0x80]), 8);
        assert_eq!(significant_bits(&[1, 0]), 9);
    }

    #[test]
    fn to_width_pads_and_trims() {
        assert_eq!(to_width(&[5], 9), vec![0, 5]);
        assert_eq!(to_width(&[0, 0, 0, 5], 9), vec![0, 5]);
        assert_eq!(to_width(&[0x0a, 0, 0, 1], 32), vec![0x0a, 0, 0, 1]);
        assert_eq!(to_width(&[0], 1), vec![0]);
    }

    #[test]
    fn masks() {
        assert_eq!(all_ones(9), vec![0x01, 0xff]);
        assert_eq!(all_ones(16), vec![0xff, 0xff]);
        assert_eq!(prefix_mask(32, 24), vec![0xff, 0xff, 0xff, 0]);
        assert_eq!(prefix_mask(32, 0), vec![0, 0, 0, 0]);
        assert_eq!(prefix_mask(9, 1), vec![0x01, 0x00]);
        assert_eq!(prefix_mask(9, 9), vec![0x01, 0xff]);
        assert!(has_bits_outside(&[0x0a, 0, 0, 1], &prefix_mask(32, 24)));
        assert!(!has_bits_outside(&[0x0a, 0, 1, 0], &prefix_mask(32, 24)));
    }

    #[test]
    fn compare_ignores_padding() {
        use std::cmp::Ordering::*;
        assert_eq!(cmp(&[0, 5], &[5]), Equal);
        assert_eq!(cmp(&[1, 0], &[0xff]), Greater);
        assert_eq!(cmp(&[0], &[0, 1]), Less);
    }
}
