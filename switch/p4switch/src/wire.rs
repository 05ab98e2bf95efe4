//! Turning what AF_PACKET delivers back into wire frames, in safe code:
//! re-inserting an 802.1Q tag the kernel moved out of the frame, and completing
//! a TCP/UDP checksum left for offload (CHECKSUM_PARTIAL, sent by a peer whose
//! `tx-checksumming` is on).
//!
//! No function here panics on any input: short or malformed frames are left
//! unchanged and reported as not fixed.

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

fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc = acc.wrapping_add(u16::from_be_bytes([c[0], c[1]]) as u32);
        if acc > 0xffff_0000 {
            acc = (acc & 0xffff) + (acc >> 16);
        }
    }
    if let [last] = chunks.remainder() {
        acc = acc.wrapping_add((*last as u32) << 8);
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Computes and stores the TCP or UDP checksum of an Ethernet (optionally
/// VLAN-tagged) IPv4 or IPv6 frame from scratch. Returns whether it did.
pub fn complete_l4_checksum(frame: &mut [u8]) -> bool {
    let mut off = 12;
    let mut ethertype = match frame.get(12..14) {
        Some(b) => u16::from_be_bytes([b[0], b[1]]),
        None => return false,
    };
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        off += 4;
        ethertype = match frame.get(off..off + 2) {
            Some(b) => u16::from_be_bytes([b[0], b[1]]),
            None => return false,
        };
    }
    let l3 = off + 2;
    let (proto, l4, l4_len, pseudo) = match ethertype {
        0x0800 => {
            let Some(ip) = frame.get(l3..l3 + 20) else { return false };
            let ihl = (ip[0] & 0x0f) as usize * 4;
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
            if ip[0] >> 4 != 4 || ihl < 20 || total < ihl || frag != 0 || l3 + total > frame.len() {
                return false;
            }
            let proto = ip[9];
            let l4_len = total - ihl;
            let mut acc = sum16(&ip[12..20], 0);
            acc += proto as u32 + l4_len as u32;
            (proto, l3 + ihl, l4_len, acc)
        }
        0x86dd => {
            let Some(ip) = frame.get(l3..l3 + 40) else { return false };
            let plen = u16::from_be_bytes([ip[4], ip[5]]) as usize;
            if ip[0] >> 4 != 6 || l3 + 40 + plen > frame.len() {
                return false;
            }
            let proto = ip[6];
            let mut acc = sum16(&ip[8..40], 0);
            acc += proto as u32 + plen as u32;
            (proto, l3 + 40, plen, acc)
        }
        _ => return false,
    };
    let csum_at = match proto {
        6 if l4_len >= 20 => l4 + 16,
        17 if l4_len >= 8 => l4 + 6,
        _ => return false,
    };
    frame[csum_at] = 0;
    frame[csum_at + 1] = 0;
    let mut c = !fold(sum16(&frame[l4..l4 + l4_len], pseudo));
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    frame[csum_at..csum_at + 2].copy_from_slice(&c.to_be_bytes());
    true
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
        let mut acc = sum16(&f[26..34], 0) + 17 + 10;
        acc = sum16(&f[34..44], acc);
        assert_eq!(fold(acc), 0xffff);
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
