//! Hash and checksum algorithms of BMv2 calculations: crc16 (CRC-16/ARC),
//! crc32 (IEEE), crcCCITT (CRC-16/CCITT-FALSE), their `_custom` variants
//! (same defaults), csum16 (Internet checksum), xor16, identity and random.

/// Parameters of a CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrcParams {
    pub width: u32,
    pub poly: u64,
    pub init: u64,
    pub xor_out: u64,
    pub reflect_in: bool,
    pub reflect_out: bool,
}

pub const CRC16: CrcParams =
    CrcParams { width: 16, poly: 0x8005, init: 0, xor_out: 0, reflect_in: true, reflect_out: true };
pub const CRC32: CrcParams = CrcParams {
    width: 32,
    poly: 0x04C1_1DB7,
    init: 0xFFFF_FFFF,
    xor_out: 0xFFFF_FFFF,
    reflect_in: true,
    reflect_out: true,
};
pub const CRC_CCITT: CrcParams =
    CrcParams { width: 16, poly: 0x1021, init: 0xFFFF, xor_out: 0, reflect_in: false, reflect_out: false };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    Crc(CrcParams),
    Csum16,
    Xor16,
    Identity,
    Random,
}

impl Algo {
    /// Algorithm by its BMv2 name.
    pub fn by_name(name: &str) -> Option<Algo> {
        Some(match name {
            "crc16" | "crc16_custom" => Algo::Crc(CRC16),
            "crc32" | "crc32_custom" => Algo::Crc(CRC32),
            "crcCCITT" | "crc_ccitt" => Algo::Crc(CRC_CCITT),
            "csum16" | "cksum16" => Algo::Csum16,
            "xor16" => Algo::Xor16,
            "identity" => Algo::Identity,
            "random" => Algo::Random,
            _ => return None,
        })
    }

    /// Computes the algorithm over `data`.
    pub fn compute(&self, data: &[u8]) -> u64 {
        match self {
            Algo::Crc(p) => crc(p, data),
            Algo::Csum16 => csum16(data) as u64,
            Algo::Xor16 => xor16(data) as u64,
            Algo::Identity => {
                let mut v: u64 = 0;
                for &b in data.iter().rev().take(8).collect::<Vec<_>>().iter().rev() {
                    v = (v << 8) | *b as u64;
                }
                v
            }
            Algo::Random => fast_random(),
        }
    }
}

fn reflect(mut v: u64, width: u32) -> u64 {
    let mut r = 0;
    for _ in 0..width {
        r = (r << 1) | (v & 1);
        v >>= 1;
    }
    r
}

/// Bitwise CRC (any width up to 64).
pub fn crc(p: &CrcParams, data: &[u8]) -> u64 {
    let top = 1u64 << (p.width - 1);
    let mask = if p.width >= 64 { u64::MAX } else { (1u64 << p.width) - 1 };
    let mut reg = p.init & mask;
    for &b in data {
        let byte = if p.reflect_in { reflect(b as u64, 8) } else { b as u64 };
        reg ^= byte << (p.width - 8);
        for _ in 0..8 {
            if reg & top != 0 {
                reg = ((reg << 1) ^ p.poly) & mask;
            } else {
                reg = (reg << 1) & mask;
            }
        }
    }
    if p.reflect_out {
        reg = reflect(reg, p.width);
    }
    (reg ^ p.xor_out) & mask
}

/// Internet checksum (RFC 1071) of `data`, odd length padded with a zero byte.
pub fn csum16(data: &[u8]) -> u16 {
    !fold16(ones_sum(data, 0))
}

/// `acc` plus the big-endian 16-bit words of `data` (odd length padded with a
/// zero byte), not folded: the Internet checksum's sum, to which a
/// pseudo-header's words can be added before [`fold16`].
pub fn ones_sum(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += ((c[0] as u64) << 8) | c[1] as u64;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u64) << 8;
    }
    acc
}

/// Folds a [`ones_sum`] to 16 bits with end-around carries (not complemented).
pub fn fold16(mut acc: u64) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

pub fn xor16(data: &[u8]) -> u16 {
    let mut x: u16 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        x ^= ((c[0] as u16) << 8) | c[1] as u16;
    }
    if let [last] = chunks.remainder() {
        x ^= (*last as u16) << 8;
    }
    x
}

/// A per-thread xorshift generator (not cryptographic; for `random` and
/// `modify_field_rng_uniform`).
pub fn fast_random() -> u64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9E37_79B9_7F4A_7C15);
            t | 1
        });
    }
    STATE.with(|s| {
        let mut x = s.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.set(x);
        x
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_values() {
        // Standard check values over "123456789".
        let d = b"123456789";
        assert_eq!(crc(&CRC16, d), 0xBB3D);
        assert_eq!(crc(&CRC32, d), 0xCBF4_3926);
        assert_eq!(crc(&CRC_CCITT, d), 0x29B1);
    }

    #[test]
    fn internet_checksum() {
        // IPv4 header example with checksum field zeroed: 0xb861.
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
            0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(csum16(&h), 0xb861);
        assert_eq!(csum16(&[0x01]), !0x0100);
        // the sum chains: header in two pieces gives the same checksum
        assert_eq!(!fold16(ones_sum(&h[10..], ones_sum(&h[..10], 0))), 0xb861);
        assert_eq!(fold16(0x2_fffe), 0x0001);
        assert_eq!(xor16(&[0x12, 0x34, 0x56, 0x78, 0x9a]), 0x1234 ^ 0x5678 ^ 0x9a00);
        assert_eq!(Algo::Identity.compute(&[1, 2, 3]), 0x010203);
    }
}
