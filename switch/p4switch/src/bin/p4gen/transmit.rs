//! How the sender hands a batch of probe frames to the kernel.
//!
//! - **gso**: the batch as one UDP segmentation super-frame
//!   ([`p4switch::udpgso`]): one system call and one socket buffer per batch,
//!   the kernel cuts it into wire frames. About half the kernel time per frame
//!   of `sendmmsg` (bench/README.md, "The generator"). It needs the transmit
//!   interface's checksum offload off, as the benchmark topologies set it;
//!   otherwise the device would get the uncut super-frame.
//! - **sendmmsg**: one `sendmmsg` per batch, one socket buffer per frame, the
//!   qdisc bypassed.
//!
//! `--tx-mode auto` takes gso where it works and sendmmsg otherwise; a kernel
//! that refuses the super-frame on the first send makes it fall back.
//!
//! A super-frame the device refuses counts all its frames as refused; a
//! device that drops only some of a super-frame's frames (a full veth ring)
//! reports nothing, and those frames show as lost at the receiver.

use std::io;

use p4switch::sys::{self, PacketSocket, SocketOptions, TxBatch, TX_BATCH};
use p4switch::udpgso::{SuperFrame, UdpGsoSocket};

use crate::frame;
use crate::options::{Opts, TxMode};

pub enum Transmit {
    /// `fallback`: in `auto` mode until the kernel has taken a super-frame, the
    /// frame template to fall back to `sendmmsg` with.
    Gso { sock: UdpGsoSocket, frames: SuperFrame, fallback: Option<Vec<u8>> },
    Sendmmsg { sock: PacketSocket, batch: TxBatch, frame: Vec<u8> },
}

/// Frames of one batch the kernel took and refused.
#[derive(Default, Clone, Copy)]
pub struct Handed {
    pub accepted: u64,
    pub refused: u64,
}

impl Transmit {
    /// Opens the transmit side for frames made from `template`, in the calling
    /// thread's network namespace.
    pub fn open(o: &Opts, template: Vec<u8>) -> io::Result<Transmit> {
        let gso = match o.tx_mode {
            TxMode::Sendmmsg => None,
            TxMode::Auto => match sys::tx_checksum_offload(&o.tx) {
                Ok(false) => SuperFrame::new(&template),
                _ => None,
            },
            TxMode::Gso => {
                if sys::tx_checksum_offload(&o.tx)? {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "--tx-mode gso: {} offloads transmit checksums, so it would get uncut super-frames; \
                             turn it off (ethtool -K {} tx off) or use --tx-mode sendmmsg",
                            o.tx, o.tx
                        ),
                    ));
                }
                Some(SuperFrame::new(&template).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "--tx-mode gso: the frame is too large for UDP segmentation")
                })?)
            }
        };
        match gso {
            Some(frames) => Ok(Transmit::Gso {
                sock: UdpGsoSocket::open(&o.tx)?,
                frames,
                fallback: (o.tx_mode == TxMode::Auto).then_some(template),
            }),
            None => Transmit::sendmmsg(&o.tx, template),
        }
    }

    fn sendmmsg(iface: &str, frame: Vec<u8>) -> io::Result<Transmit> {
        Ok(Transmit::Sendmmsg { sock: PacketSocket::open(iface, &SocketOptions::sender(None))?, batch: TxBatch::new(), frame })
    }

    /// `gso` or `sendmmsg`.
    pub fn mode(&self) -> &'static str {
        match self {
            Transmit::Gso { .. } => "gso",
            Transmit::Sendmmsg { .. } => "sendmmsg",
        }
    }

    /// Most frames one kernel call takes.
    pub fn batch_frames(&self) -> usize {
        match self {
            Transmit::Gso { frames, .. } => frames.max_frames(),
            Transmit::Sendmmsg { .. } => TX_BATCH,
        }
    }

    /// Stamps frames `seq .. seq + n` (n ≤ [`Self::batch_frames`]) with `tx_ns`
    /// and hands them to the kernel.
    pub fn send(&mut self, seq: u64, n: usize, tx_ns: u64) -> io::Result<Handed> {
        match self {
            Transmit::Sendmmsg { sock, batch, frame } => {
                for k in 0..n {
                    frame::stamp(frame, (seq + k as u64) as u32, tx_ns);
                    batch.push(frame);
                }
                let lost_before = batch.lost;
                let accepted = sock.send_batch(batch)? as u64;
                Ok(Handed { accepted, refused: batch.lost - lost_before })
            }
            Transmit::Gso { sock, frames, fallback } => {
                for k in 0..n {
                    frame::stamp_payload(frames.payload_mut(k), (seq + k as u64) as u32, tx_ns);
                }
                match sock.send(frames.fill(n)) {
                    Ok(()) => {
                        *fallback = None;
                        Ok(Handed { accepted: n as u64, refused: 0 })
                    }
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ENOBUFS) | Some(libc::EAGAIN)) => {
                        Ok(Handed { accepted: 0, refused: n as u64 })
                    }
                    Err(e) if fallback.is_some() && matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::EOPNOTSUPP)) => {
                        let iface = sock.name().to_string();
                        let template = fallback.take().unwrap_or_default();
                        *self = Transmit::sendmmsg(&iface, template)?;
                        self.send(seq, n, tx_ns)
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }
}
