//! The probe frame: Ethernet / IPv4 / UDP 1024 → 2048, then 18 bytes that fit
//! the smallest (60-byte, 64 with FCS) frame:
//!
//! ```text
//! offset 42  "P4GN"   magic
//!        46  u16      tag: which generator run and trial the frame belongs to
//!        48  u32      sequence number within the trial, from 0
//!        52  u64      send time, CLOCK_REALTIME nanoseconds
//! ```
//! all big-endian. The rest of a larger frame is zeros. [`Probe::parse`]
//! accepts any byte slice and returns `None` for anything that is not a probe.

use p4engine::csum16;

use crate::options::Opts;

pub const MAGIC: &[u8; 4] = b"P4GN";
const MAGIC_OFF: usize = 42;
const TAG_OFF: usize = 46;
const SEQ_OFF: usize = 48;
const TIME_OFF: usize = 52;
/// Bytes a frame needs to carry a probe (the minimum Ethernet frame without FCS).
pub const PROBE_END: usize = 60;

/// The template frame of one trial (sequence number and time still zero).
pub fn template(o: &Opts, tag: u16) -> Vec<u8> {
    let size = o.size.max(PROBE_END);
    let mut f = vec![0u8; size];
    f[0..6].copy_from_slice(&o.dst_mac);
    f[6..12].copy_from_slice(&o.src_mac);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip_len = (size - 14) as u16;
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&o.src_ip);
    ip[16..20].copy_from_slice(&o.dst_ip);
    let csum = csum16(ip);
    ip[10..12].copy_from_slice(&csum.to_be_bytes());
    f[34..36].copy_from_slice(&1024u16.to_be_bytes());
    f[36..38].copy_from_slice(&2048u16.to_be_bytes());
    f[38..40].copy_from_slice(&(ip_len - 20).to_be_bytes());
    // UDP checksum 0: none (allowed for IPv4), so stamping needs no fix-up.
    f[MAGIC_OFF..TAG_OFF].copy_from_slice(MAGIC);
    f[TAG_OFF..SEQ_OFF].copy_from_slice(&tag.to_be_bytes());
    f
}

/// Writes the sequence number and send time into a frame made from [`template`].
#[inline]
pub fn stamp(frame: &mut [u8], seq: u32, tx_ns: u64) {
    stamp_payload(&mut frame[MAGIC_OFF..], seq, tx_ns);
}

/// [`stamp`] on a frame's UDP payload (the frame from offset 42 on), as a
/// super-frame holds them.
#[inline]
pub fn stamp_payload(payload: &mut [u8], seq: u32, tx_ns: u64) {
    const SEQ: usize = SEQ_OFF - MAGIC_OFF;
    const TIME: usize = TIME_OFF - MAGIC_OFF;
    payload[SEQ..TIME].copy_from_slice(&seq.to_be_bytes());
    payload[TIME..PROBE_END - MAGIC_OFF].copy_from_slice(&tx_ns.to_be_bytes());
}

/// The probe fields of a received frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub tag: u16,
    pub seq: u32,
    pub tx_ns: u64,
}

impl Probe {
    /// The probe in `frame`, or `None` if it is too short or lacks the magic word.
    /// A VLAN tag or an MPLS label stack a switch pushed in front of the IPv4
    /// header is skipped (bench-switch measures MPLS push with these frames).
    #[inline]
    pub fn parse(frame: &[u8]) -> Option<Probe> {
        let shift = pushed_bytes(frame)?;
        let p = frame.get(MAGIC_OFF + shift..PROBE_END + shift)?;
        if &p[..4] != MAGIC {
            return None;
        }
        let tag = u16::from_be_bytes([p[4], p[5]]);
        let seq = u32::from_be_bytes([p[6], p[7], p[8], p[9]]);
        let mut t = [0u8; 8];
        t.copy_from_slice(&p[10..18]);
        Some(Probe { tag, seq, tx_ns: u64::from_be_bytes(t) })
    }
}

/// Bytes of VLAN tags and MPLS labels between the MAC addresses and the IPv4 header.
#[inline]
fn pushed_bytes(frame: &[u8]) -> Option<usize> {
    let mut off = 12;
    loop {
        let ty = u16::from_be_bytes([*frame.get(off)?, *frame.get(off + 1)?]);
        match ty {
            0x8100 | 0x88a8 => off += 4,
            0x8847 => {
                off += 2;
                // labels until the one with the bottom-of-stack bit
                while frame.get(off + 2)? & 1 == 0 {
                    off += 4;
                }
                return Some(off + 4 - 14);
            }
            _ => return Some(off - 12),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::parse;

    fn opts(size: usize) -> Opts {
        let args: Vec<String> =
            ["--tx", "a", "--rx", "b", "--size", &size.to_string()].iter().map(|s| s.to_string()).collect();
        parse(&args).unwrap()
    }

    #[test]
    fn smallest_frame_carries_the_whole_probe() {
        let mut f = template(&opts(60), 0xbeef);
        assert_eq!(f.len(), 60);
        stamp(&mut f, 0x0102_0304, 1_763_712_000_123_456_789);
        assert_eq!(Probe::parse(&f), Some(Probe { tag: 0xbeef, seq: 0x0102_0304, tx_ns: 1_763_712_000_123_456_789 }));
        assert_eq!(&f[42..46], b"P4GN");
    }

    #[test]
    fn probe_behind_a_vlan_tag_or_mpls_labels_is_found() {
        let mut f = template(&opts(60), 7);
        stamp(&mut f, 9, 1234);
        let want = Some(Probe { tag: 7, seq: 9, tx_ns: 1234 });
        let mut tagged = f[..12].to_vec();
        tagged.extend_from_slice(&[0x81, 0x00, 0x00, 0x0a]);
        tagged.extend_from_slice(&f[12..]);
        assert_eq!(Probe::parse(&tagged), want);
        let mut two = f[..12].to_vec();
        two.extend_from_slice(&[0x88, 0x47, 0x00, 0x3e, 0x90, 0x40, 0x00, 0x3e, 0xa1, 0x40]); // 1001, 1002 (bottom)
        two.extend_from_slice(&f[14..]);
        assert_eq!(Probe::parse(&two), want);
        assert_eq!(Probe::parse(&two[..two.len() - 1]), None, "cut short");
        assert_eq!(Probe::parse(&two[..15]), None, "label stack cut short");
    }

    #[test]
    fn headers_are_valid_ipv4_udp() {
        let f = template(&opts(1514), 1);
        assert_eq!(f.len(), 1514);
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 1500, "IPv4 total length");
        assert_eq!(csum16(&f[14..34]), 0, "header checksum verifies");
        assert_eq!(u16::from_be_bytes([f[38], f[39]]), 1480, "UDP length");
        assert_eq!(&f[26..30], &[10, 0, 0, 1]);
    }

    #[test]
    fn truncated_or_foreign_frames_are_not_probes() {
        let mut f = template(&opts(60), 7);
        stamp(&mut f, 1, 2);
        for n in [0, 14, 42, 46, 59] {
            assert_eq!(Probe::parse(&f[..n]), None, "{n} bytes");
        }
        f[42] = b'X';
        assert_eq!(Probe::parse(&f), None);
        assert_eq!(Probe::parse(&[0u8; 1500]), None);
    }
}
