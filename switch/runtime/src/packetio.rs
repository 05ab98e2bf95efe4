//! Packet-out and packet-in controller headers.
//!
//! The program's `@controller_header("packet_out")` header is prepended to a
//! PacketOut's payload, built from the message's metadata; a packet the
//! pipeline sends to the CPU port starts with the `@controller_header
//! ("packet_in")` header, which is cut off and turned into metadata. Field
//! order and widths come from the P4Info `controller_packet_metadata`; fields
//! are packed most significant bit first, without padding between them.
//!
//! No input can make these functions panic: short frames and bad metadata are
//! errors.

use crate::canonical;
use crate::error::{RtError, RtResult};
use crate::proto::p4::v1::PacketMetadata;
use crate::schema::PacketMetaS;

fn header_bytes(layout: &[PacketMetaS]) -> usize {
    let bits: u64 = layout.iter().map(|f| f.bitwidth as u64).sum();
    bits.div_ceil(8) as usize
}

/// Writes the low `width` bits of big-endian `value` at bit offset `pos` of `out`.
pub(crate) fn put_bits(out: &mut [u8], pos: usize, width: u32, value: &[u8]) {
    for i in 0..width as usize {
        // bit i of the field, counted from its most significant bit
        let from_lsb = width as usize - 1 - i;
        let byte = value.len().checked_sub(1 + from_lsb / 8).map(|b| value[b]).unwrap_or(0);
        if byte >> (from_lsb % 8) & 1 == 1 {
            let p = pos + i;
            out[p / 8] |= 0x80 >> (p % 8);
        }
    }
}

pub(crate) fn get_bits(data: &[u8], pos: usize, width: u32) -> Vec<u8> {
    let n = (width as usize).div_ceil(8).max(1);
    let mut out = vec![0u8; n];
    for i in 0..width as usize {
        let p = pos + i;
        if data[p / 8] & (0x80 >> (p % 8)) != 0 {
            let from_lsb = width as usize - 1 - i;
            out[n - 1 - from_lsb / 8] |= 1 << (from_lsb % 8);
        }
    }
    out
}

/// The frame to inject for a PacketOut: controller header + payload. Missing
/// metadata fields are 0; unknown ids and values wider than their field are
/// INVALID_ARGUMENT.
pub fn build_packet_out(layout: &[PacketMetaS], metadata: &[PacketMetadata], payload: &[u8]) -> RtResult<Vec<u8>> {
    let hlen = header_bytes(layout);
    let mut frame = vec![0u8; hlen + payload.len()];
    let mut seen = Vec::new();
    for m in metadata {
        if seen.contains(&m.metadata_id) {
            return Err(RtError::invalid(format!("packet_out metadata id {} given twice", m.metadata_id)));
        }
        seen.push(m.metadata_id);
        if !layout.iter().any(|f| f.id == m.metadata_id) {
            return Err(RtError::invalid(format!("unknown packet_out metadata id {}", m.metadata_id)));
        }
    }
    let mut pos = 0usize;
    for f in layout {
        if let Some(m) = metadata.iter().find(|m| m.metadata_id == f.id) {
            canonical::check(&m.value, f.bitwidth)
                .map_err(|e| RtError::width(format_args!("packet_out metadata '{}'", f.name), e))?;
            put_bits(&mut frame[..hlen], pos, f.bitwidth, &m.value);
        }
        pos += f.bitwidth as usize;
    }
    frame[hlen..].copy_from_slice(payload);
    Ok(frame)
}

/// Splits a CPU-port frame into packet_in metadata (canonical values) and
/// payload. `None` if the frame is shorter than the header.
pub fn parse_packet_in<'a>(layout: &[PacketMetaS], frame: &'a [u8]) -> Option<(Vec<PacketMetadata>, &'a [u8])> {
    let hlen = header_bytes(layout);
    if frame.len() < hlen {
        return None;
    }
    let mut pos = 0usize;
    let mut md = Vec::with_capacity(layout.len());
    for f in layout {
        let v = get_bits(&frame[..hlen], pos, f.bitwidth);
        md.push(PacketMetadata { metadata_id: f.id, value: canonical::canonical(&v) });
        pos += f.bitwidth as usize;
    }
    Some((md, &frame[hlen..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Vec<PacketMetaS> {
        // the usual header: bit<9> port, bit<7> padding
        vec![
            PacketMetaS { id: 1, name: "egress_port".into(), bitwidth: 9 },
            PacketMetaS { id: 2, name: "_pad".into(), bitwidth: 7 },
        ]
    }

    fn md(id: u32, v: &[u8]) -> PacketMetadata {
        PacketMetadata { metadata_id: id, value: v.to_vec() }
    }

    #[test]
    fn packet_out_header_is_packed_msb_first() {
        let f = build_packet_out(&layout(), &[md(1, &[0, 3])], &[0xaa, 0xbb]).unwrap();
        // port 3 in 9 bits followed by 7 zero bits: 0000_0001 1000_0000
        assert_eq!(f, vec![0x01, 0x80, 0xaa, 0xbb]);
        let f = build_packet_out(&layout(), &[md(1, &[1, 0xff]), md(2, &[0x7f])], &[]).unwrap();
        assert_eq!(f, vec![0xff, 0xff]);
    }

    #[test]
    fn packet_out_refuses_bad_metadata() {
        assert!(build_packet_out(&layout(), &[md(9, &[1])], &[]).is_err());
        assert!(build_packet_out(&layout(), &[md(1, &[2, 0])], &[]).is_err(), "10 bits in bit<9>");
        assert!(build_packet_out(&layout(), &[md(1, &[1]), md(1, &[1])], &[]).is_err());
        assert!(build_packet_out(&layout(), &[md(1, &[])], &[]).is_err());
    }

    #[test]
    fn packet_in_round_trip() {
        let f = build_packet_out(&layout(), &[md(1, &[1, 0x23])], &[1, 2, 3]).unwrap();
        let (m, payload) = parse_packet_in(&layout(), &f).unwrap();
        assert_eq!(m, vec![md(1, &[1, 0x23]), md(2, &[0])]);
        assert_eq!(payload, &[1, 2, 3]);
    }

    #[test]
    fn short_packet_in_is_refused() {
        assert!(parse_packet_in(&layout(), &[0x01]).is_none());
        assert!(parse_packet_in(&layout(), &[]).is_none());
        let (m, p) = parse_packet_in(&[], &[5]).unwrap();
        assert!(m.is_empty());
        assert_eq!(p, &[5]);
    }

    #[test]
    fn odd_widths() {
        let l = vec![
            PacketMetaS { id: 1, name: "a".into(), bitwidth: 3 },
            PacketMetaS { id: 2, name: "b".into(), bitwidth: 13 },
        ];
        let f = build_packet_out(&l, &[md(1, &[5]), md(2, &[0x1f, 0xff])], &[]).unwrap();
        assert_eq!(f, vec![0xbf, 0xff]);
        let (m, _) = parse_packet_in(&l, &f).unwrap();
        assert_eq!(m, vec![md(1, &[5]), md(2, &[0x1f, 0xff])]);
    }
}
