//! Sending many UDP frames as one socket buffer: an AF_PACKET socket with a
//! virtio-net header (`PACKET_VNET_HDR`) takes a "super-frame" — one
//! Ethernet/IPv4/UDP header and the payloads of up to [`MAX_SEGMENTS`] frames —
//! and the kernel cuts it into wire frames (UDP segmentation, `SKB_GSO_UDP_L4`)
//! before the device, fixing each frame's IPv4 length, identification and
//! checksums. One system call, one socket buffer and one copy carry a whole
//! batch, where `sendmmsg` pays all three per frame.
//!
//! The kernel cuts the super-frame in software only if the device cannot do
//! it itself, i.e. when the interface's transmit checksum offload is off
//! ([`crate::sys::tx_checksum_offload`]); otherwise the device would receive
//! the uncut super-frame. The socket does not bypass the qdisc: the bypass path
//! drops any buffer that needs segmenting.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use p4engine::{csum16, fold16, ones_sum};

use crate::sys::packet::{bind, send_raw, transmit_socket};
use crate::sys::{ifindex, set_packet_option};

const PACKET_VNET_HDR: libc::c_int = 15;
/// Size of the virtio-net header in front of every buffer handed to the socket.
pub const VNET_HDR_LEN: usize = 10;
/// Most frames in one super-frame (the kernel accepts up to 64 or 128, by version).
pub const MAX_SEGMENTS: usize = 64;
const VIRTIO_NET_HDR_F_NEEDS_CSUM: u8 = 1;
const VIRTIO_NET_HDR_GSO_NONE: u8 = 0;
const VIRTIO_NET_HDR_GSO_UDP_L4: u8 = 5;
/// Ethernet (14) + IPv4 without options (20) + UDP (8).
pub const HEADERS: usize = 42;

/// An AF_PACKET socket on one interface that sends super-frames.
pub struct UdpGsoSocket {
    fd: OwnedFd,
    name: String,
}

impl UdpGsoSocket {
    /// A sending socket on `iface` (in the calling thread's namespace).
    pub fn open(iface: &str) -> io::Result<UdpGsoSocket> {
        let ctx = |e: io::Error, what: &str| io::Error::new(e.kind(), format!("{iface}: {what}: {e}"));
        let index = ifindex(iface)?;
        let fd = transmit_socket(iface, false)?;
        let one: libc::c_int = 1;
        set_packet_option(fd.as_raw_fd(), PACKET_VNET_HDR, &one).map_err(|e| ctx(e, "PACKET_VNET_HDR"))?;
        bind(fd.as_raw_fd(), index, 0).map_err(|e| ctx(e, "bind"))?;
        Ok(UdpGsoSocket { fd, name: iface.to_string() })
    }

    /// The interface.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Hands one buffer made by [`SuperFrame::fill`] to the kernel.
    pub fn send(&self, buf: &[u8]) -> io::Result<()> {
        send_raw(self.fd.as_raw_fd(), buf)
    }
}

/// A reusable super-frame: virtio-net header, the template's 42 header bytes,
/// then one payload per frame (the template's payload, each stamped by the
/// caller). Only Ethernet/IPv4 (no options)/UDP templates qualify.
pub struct SuperFrame {
    buf: Vec<u8>,
    payload: usize,
    max: usize,
}

impl SuperFrame {
    /// A super-frame for copies of `template`, or `None` if the template is not
    /// plain Ethernet/IPv4/UDP or too large to put two copies in one buffer.
    pub fn new(template: &[u8]) -> Option<SuperFrame> {
        let plain = template.len() > HEADERS
            && template[12..14] == [0x08, 0x00]
            && template[14] == 0x45
            && template[23] == 17;
        if !plain {
            return None;
        }
        let payload = template.len() - HEADERS;
        // IPv4 total length is 16 bits: 28 header bytes plus the payloads.
        let max = ((usize::from(u16::MAX) - 28) / payload).min(MAX_SEGMENTS);
        if max < 2 {
            return None;
        }
        let mut buf = vec![0u8; VNET_HDR_LEN + HEADERS + max * payload];
        buf[VNET_HDR_LEN..VNET_HDR_LEN + HEADERS].copy_from_slice(&template[..HEADERS]);
        for i in 0..max {
            let at = VNET_HDR_LEN + HEADERS + i * payload;
            buf[at..at + payload].copy_from_slice(&template[HEADERS..]);
        }
        Some(SuperFrame { buf, payload, max })
    }

    /// Most frames in one buffer.
    pub fn max_frames(&self) -> usize {
        self.max
    }

    /// The payload of frame `i` (0-based, `i < max_frames()`), to stamp;
    /// its offset 0 is the wire frame's offset 42.
    #[inline]
    pub fn payload_mut(&mut self, i: usize) -> &mut [u8] {
        let at = VNET_HDR_LEN + HEADERS + i * self.payload;
        &mut self.buf[at..at + self.payload]
    }

    /// Writes the headers for `n` frames (1..=max_frames()) and returns the
    /// buffer to send: with n > 1 the kernel cuts it into n frames, each with
    /// its own UDP and IPv4 checksums; with n = 1 it is one plain frame.
    pub fn fill(&mut self, n: usize) -> &[u8] {
        let n = n.clamp(1, self.max);
        let udp_len = 8 + n * self.payload;
        let ip_len = 20 + udp_len;
        let (flags, gso, check) = if n > 1 {
            // The kernel completes the checksum from csum_start; the field holds
            // the pseudo-header sum (not complemented) of the whole super-frame.
            (VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_UDP_L4, pseudo_header_sum(&self.buf[VNET_HDR_LEN..], udp_len))
        } else {
            (0, VIRTIO_NET_HDR_GSO_NONE, 0) // one frame: no UDP checksum, allowed for IPv4
        };
        let v = &mut self.buf[..VNET_HDR_LEN];
        v[0] = flags;
        v[1] = gso;
        v[2..4].copy_from_slice(&(HEADERS as u16).to_ne_bytes());
        v[4..6].copy_from_slice(&(self.payload as u16).to_ne_bytes());
        v[6..8].copy_from_slice(&34u16.to_ne_bytes()); // csum_start: the UDP header
        v[8..10].copy_from_slice(&6u16.to_ne_bytes()); // csum_offset: UDP checksum
        let f = &mut self.buf[VNET_HDR_LEN..];
        f[16..18].copy_from_slice(&(ip_len as u16).to_be_bytes());
        f[24..26].copy_from_slice(&[0, 0]);
        let c = csum16(&f[14..34]);
        f[24..26].copy_from_slice(&c.to_be_bytes());
        f[38..40].copy_from_slice(&(udp_len as u16).to_be_bytes());
        f[40..42].copy_from_slice(&check.to_be_bytes());
        &self.buf[..VNET_HDR_LEN + HEADERS + n * self.payload]
    }
}

/// The IPv4 pseudo-header sum of the frame `f` for a UDP length of `udp_len`.
fn pseudo_header_sum(f: &[u8], udp_len: usize) -> u16 {
    fold16(ones_sum(&f[26..34], 0) + 17 + udp_len as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(size: usize) -> Vec<u8> {
        let mut f = vec![0u8; size];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[22] = 64;
        f[23] = 17;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f[HEADERS..HEADERS + 4].copy_from_slice(b"P4GN");
        f
    }

    #[test]
    fn headers_and_checksums_of_a_super_frame() {
        let t = template(60);
        let mut sf = SuperFrame::new(&t).unwrap();
        assert_eq!(sf.max_frames(), MAX_SEGMENTS);
        for i in 0..3 {
            sf.payload_mut(i)[6] = i as u8;
        }
        let buf = sf.fill(3).to_vec();
        assert_eq!(buf.len(), VNET_HDR_LEN + HEADERS + 3 * 18);
        assert_eq!(buf[0], VIRTIO_NET_HDR_F_NEEDS_CSUM);
        assert_eq!(buf[1], VIRTIO_NET_HDR_GSO_UDP_L4);
        assert_eq!(u16::from_ne_bytes([buf[4], buf[5]]), 18, "gso_size is one frame's payload");
        let f = &buf[VNET_HDR_LEN..];
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 20 + 8 + 54);
        assert_eq!(fold16(ones_sum(&f[14..34], 0)), 0xffff, "IPv4 header checksum verifies");
        // The UDP checksum field carries the pseudo-header sum of the whole
        // super-frame, which the kernel adjusts per frame and completes (the
        // veth test checks the frames it cuts).
        assert_eq!(u16::from_be_bytes([f[38], f[39]]), 8 + 54);
        let seed = fold16(ones_sum(&f[26..34], 0) + 17 + 62);
        assert_eq!(u16::from_be_bytes([f[40], f[41]]), seed);
        for i in 0..3 {
            assert_eq!(f[HEADERS + i * 18 + 6], i as u8, "payload {i} in place");
            assert_eq!(&f[HEADERS + i * 18..HEADERS + i * 18 + 4], b"P4GN");
        }
    }

    #[test]
    fn one_frame_is_sent_plain() {
        let t = template(60);
        let mut sf = SuperFrame::new(&t).unwrap();
        let buf = sf.fill(1).to_vec();
        assert_eq!((buf[0], buf[1]), (0, VIRTIO_NET_HDR_GSO_NONE));
        let f = &buf[VNET_HDR_LEN..];
        assert_eq!(f.len(), 60);
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 46);
        assert_eq!(fold16(ones_sum(&f[14..34], 0)), 0xffff);
        assert_eq!(&f[40..42], &[0, 0], "no UDP checksum");
    }

    #[test]
    fn segment_count_respects_the_ipv4_length() {
        let sf = SuperFrame::new(&template(1514)).unwrap();
        assert_eq!(sf.max_frames(), (65535 - 28) / 1472);
        assert!(SuperFrame::new(&template(40_000)).is_none(), "two copies do not fit");
        let mut not_udp = template(60);
        not_udp[23] = 6;
        assert!(SuperFrame::new(&not_udp).is_none());
    }
}
