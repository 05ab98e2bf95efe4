//! Turning what AF_PACKET delivers back into wire frames, in safe code:
//! re-inserting an 802.1Q tag the kernel moved out of the frame, and completing
//! a TCP/UDP checksum left for offload (CHECKSUM_PARTIAL, sent by a peer whose
//! `tx-checksumming` is on).
//!
//! No function here panics on any input: short or malformed frames are left
//! unchanged and reported as not fixed.

// The engine's Internet checksum (sum, fold), the project's one copy.
use p4engine::{fold16, ones_sum};

/// Writes `frame` with the tag (TPID, TCI) inserted after the MAC addresses
/// into `out`, returning the new length (`None` if `out` is too small or the
/// frame is shorter than two MAC addresses).
pub fn insert_vlan(frame: &[u8], tpid: u16, tci: u16, out: &mut [u8]) -> Option<usize> {
    if frame.len() < 12 || out.len() < frame.len() + 4 {
        return None;
    }
    out[..12].copy_from_slice(&frame[..12]);
    out[12..14].copy_from_slice(&tpid.to_be_bytes());
    out[14..16].copy_from_slice(&tci.to_be_bytes());
    out[16..frame.len() + 4].copy_from_slice(&frame[12..]);
    Some(frame.len() + 4)
}

/// Where the TCP or UDP checksum of an Ethernet (optionally VLAN-tagged)
/// IPv4 or IPv6 frame is, and what it covers.
struct L4 {
    /// Offset of the checksum field.
    csum_at: usize,
    /// Offset and length of the TCP/UDP header and payload.
    l4: usize,
    len: usize,
    /// Sum of the pseudo header (not folded).
    pseudo: u64,
    proto: u8,
}

fn l4_of(frame: &[u8]) -> Option<L4> {
    let mut off = 12;
    let mut ethertype = u16::from_be_bytes(frame.get(12..14)?.try_into().ok()?);
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        off += 4;
        ethertype = u16::from_be_bytes(frame.get(off..off + 2)?.try_into().ok()?);
    }
    let l3 = off + 2;
    let (proto, l4, len, pseudo) = match ethertype {
        0x0800 => {
            let ip = frame.get(l3..l3 + 20)?;
            let ihl = (ip[0] & 0x0f) as usize * 4;
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
            if ip[0] >> 4 != 4 || ihl < 20 || total < ihl || frag != 0 || l3 + total > frame.len() {
                return None;
            }
            let len = total - ihl;
            (ip[9], l3 + ihl, len, ones_sum(&ip[12..20], 0) + ip[9] as u64 + len as u64)
        }
        0x86dd => {
            let ip = frame.get(l3..l3 + 40)?;
            let len = u16::from_be_bytes([ip[4], ip[5]]) as usize;
            if ip[0] >> 4 != 6 || l3 + 40 + len > frame.len() {
                return None;
            }
            (ip[6], l3 + 40, len, ones_sum(&ip[8..40], 0) + ip[6] as u64 + len as u64)
        }
        _ => return None,
    };
    let csum_at = match proto {
        6 if len >= 20 => l4 + 16,
        17 if len >= 8 => l4 + 6,
        _ => return None,
    };
    Some(L4 { csum_at, l4, len, pseudo, proto })
}

/// Computes and stores the TCP or UDP checksum of an Ethernet (optionally
/// VLAN-tagged) IPv4 or IPv6 frame from scratch. Returns whether it did.
pub fn complete_l4_checksum(frame: &mut [u8]) -> bool {
    let Some(L4 { csum_at, l4, len, pseudo, proto }) = l4_of(frame) else { return false };
    frame[csum_at] = 0;
    frame[csum_at + 1] = 0;
    let mut c = !fold16(ones_sum(&frame[l4..l4 + len], pseudo));
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    frame[csum_at..csum_at + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Whether the frame's TCP/UDP checksum field holds only its pseudo-header
/// sum, as a sender leaves it for offload (CHECKSUM_PARTIAL). AF_XDP does not
/// say so, so the worker asks the frame. A complete checksum equal to that sum
/// (one frame in 65,536) is recomputed to the same value, so a false positive
/// costs time, never bytes.
pub fn checksum_left_for_offload(frame: &[u8]) -> bool {
    match l4_of(frame) {
        Some(l) => frame.get(l.csum_at..l.csum_at + 2).is_some_and(|c| u16::from_be_bytes([c[0], c[1]]) == fold16(l.pseudo)),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ethernet + IPv4 (10.0.0.1 -> 10.0.0.2) + UDP 1234 -> 80, payload "hi".
    fn udp4() -> Vec<u8> {
        let mut f = vec![0xff; 6];
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x08, 0x00]);
        f.extend_from_slice(&[0x45, 0, 0, 30, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        f.extend_from_slice(&[0x04, 0xd2, 0, 80, 0, 10, 0xab, 0xcd, b'h', b'i']);
        f
    }

    #[test]
    fn udp_checksum_is_completed() {
        let mut f = udp4();
        assert!(complete_l4_checksum(&mut f));
        // Verify: the sum over pseudo header + segment with the checksum folds to 0xffff.
        let mut acc = ones_sum(&f[26..34], 0) + 17 + 10;
        acc = ones_sum(&f[34..44], acc);
        assert_eq!(fold16(acc), 0xffff);
        let c1 = [f[40], f[41]];
        // Idempotent: recomputing gives the same value.
        assert!(complete_l4_checksum(&mut f));
        assert_eq!([f[40], f[41]], c1);
    }

    #[test]
    fn vlan_tag_goes_back_after_the_macs() {
        let f = udp4();
        let mut out = [0u8; 128];
        let n = insert_vlan(&f, 0x8100, 0x0064, &mut out).unwrap();
        assert_eq!(n, f.len() + 4);
        assert_eq!(&out[12..16], &[0x81, 0x00, 0x00, 0x64]);
        assert_eq!(&out[16..n], &f[12..]);
        let mut tagged = out[..n].to_vec();
        assert!(complete_l4_checksum(&mut tagged));
        assert!(insert_vlan(&f[..11], 0x8100, 1, &mut out).is_none());
        assert!(insert_vlan(&f, 0x8100, 1, &mut out[..f.len()]).is_none());
    }

    #[test]
    fn a_checksum_left_for_offload_is_recognised_and_completed() {
        let mut f = udp4();
        assert!(complete_l4_checksum(&mut f));
        let full = [f[40], f[41]];
        assert!(!checksum_left_for_offload(&f), "a complete checksum is not mistaken for a partial one");
        // What a sender with checksum offload hands over: the pseudo-header sum only.
        let pseudo = fold16(ones_sum(&f[26..34], 0) + 17 + 10);
        f[40..42].copy_from_slice(&pseudo.to_be_bytes());
        assert!(checksum_left_for_offload(&f));
        assert!(complete_l4_checksum(&mut f));
        assert_eq!([f[40], f[41]], full);
        for cut in 0..f.len() {
            assert!(!checksum_left_for_offload(&f[..cut]), "cut {cut}");
        }
    }

    #[test]
    fn malformed_frames_are_left_alone() {
        let good = udp4();
        for cut in 0..good.len() {
            let mut f = good[..cut].to_vec();
            assert!(!complete_l4_checksum(&mut f), "cut {cut}");
            assert_eq!(f, &good[..cut]);
        }
        let mut frag = good.clone();
        frag[20] = 0x20; // more fragments
        assert!(!complete_l4_checksum(&mut frag));
        let mut arp = good.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert!(!complete_l4_checksum(&mut arp));
    }
}
