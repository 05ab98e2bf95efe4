//! The XDP program of the `xdp` ports, written as eBPF instructions (no
//! compiler, no libbpf): it sends every frame to the AF_XDP socket of one
//! worker, chosen by a hash of the frame's flow, so the frames of one flow
//! always reach the same worker and stay in order.
//!
//! Slot = `rx_queue_index * workers + hash % workers` in the XSKMAP. The hash
//! folds 32-bit words that are the same for every frame of a flow:
//! - IPv4 (untagged or one 802.1Q tag): addresses and the first L4 word (the
//!   ports) — addresses only for fragments, whose L4 header is elsewhere;
//! - IPv6 (untagged): addresses and the first L4 word;
//! - anything else (ARP, MPLS, QinQ, runts): the MAC addresses, or 0.
//! If the slot holds no socket, the frame goes on to the kernel (XDP_PASS).

/// One eBPF instruction: opcode, registers, offset, immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Insn {
    code: u8,
    dst: u8,
    src: u8,
    off: i16,
    imm: i32,
}

impl Insn {
    /// The kernel's encoding (little-endian hosts: dst in the low nibble).
    fn encode(self) -> u64 {
        (self.code as u64)
            | ((self.dst as u64 & 0xf) << 8)
            | ((self.src as u64 & 0xf) << 12)
            | ((self.off as u16 as u64) << 16)
            | ((self.imm as u32 as u64) << 32)
    }
}

/// An instruction, or a jump to a label resolved at the end.
enum Op {
    I(Insn),
    Jump { code: u8, dst: u8, src: u8, imm: i32, to: &'static str },
    Label(&'static str),
}

const R0: u8 = 0;
const R1: u8 = 1;
const R2: u8 = 2;
const R3: u8 = 3;
const R4: u8 = 4;
const R5: u8 = 5;
const R6: u8 = 6;
const R7: u8 = 7;

fn i(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Op {
    Op::I(Insn { code, dst, src, off, imm })
}
fn mov(dst: u8, src: u8) -> Op {
    i(0xbf, dst, src, 0, 0)
}
fn mov_k(dst: u8, k: i32) -> Op {
    i(0xb7, dst, 0, 0, k)
}
fn ldw(dst: u8, src: u8, off: i16) -> Op {
    i(0x61, dst, src, off, 0)
}
fn ldh(dst: u8, src: u8, off: i16) -> Op {
    i(0x69, dst, src, off, 0)
}
fn add_k(dst: u8, k: i32) -> Op {
    i(0x07, dst, 0, 0, k)
}
fn add(dst: u8, src: u8) -> Op {
    i(0x0f, dst, src, 0, 0)
}
fn mul_k(dst: u8, k: i32) -> Op {
    i(0x27, dst, 0, 0, k)
}
fn xor(dst: u8, src: u8) -> Op {
    i(0xaf, dst, src, 0, 0)
}
fn rsh_k(dst: u8, k: i32) -> Op {
    i(0x77, dst, 0, 0, k)
}
fn and_k(dst: u8, k: i32) -> Op {
    i(0x57, dst, 0, 0, k)
}
fn mod_k(dst: u8, k: i32) -> Op {
    i(0x97, dst, 0, 0, k)
}
fn jgt(dst: u8, src: u8, to: &'static str) -> Op {
    Op::Jump { code: 0x2d, dst, src, imm: 0, to }
}
fn jeq_k(dst: u8, k: i32, to: &'static str) -> Op {
    Op::Jump { code: 0x15, dst, src: 0, imm: k, to }
}
fn jne_k(dst: u8, k: i32, to: &'static str) -> Op {
    Op::Jump { code: 0x55, dst, src: 0, imm: k, to }
}
fn ja(to: &'static str) -> Op {
    Op::Jump { code: 0x05, dst: 0, src: 0, imm: 0, to }
}

/// `if data + len > data_end goto done` (r2 = data, r3 = data_end).
fn need(ops: &mut Vec<Op>, len: i32) {
    ops.extend([mov(R4, R2), add_k(R4, len), jgt(R4, R3, "done")]);
}

/// r0 = xor of the 32-bit words at `offs` of the frame.
fn fold_words(ops: &mut Vec<Op>, offs: &[i16]) {
    ops.push(ldw(R0, R2, offs[0]));
    for &o in &offs[1..] {
        ops.extend([ldw(R1, R2, o), xor(R0, R1)]);
    }
}

/// The IPv4 part of the hash with the IPv4 header at `l3`.
fn ipv4(ops: &mut Vec<Op>, l3: i16, fragment: &'static str) {
    need(ops, l3 as i32 + 24);
    // Flags and fragment offset, loaded little-endian: MF bit and offset bits.
    ops.extend([ldh(R5, R2, l3 + 6), and_k(R5, 0xff3f), jne_k(R5, 0, fragment)]);
    fold_words(ops, &[l3 + 12, l3 + 16, l3 + 20]);
    ops.push(ja("done"));
}

/// The program for `workers` sockets per queue, redirecting through the
/// XSKMAP whose descriptor is `map_fd`.
pub fn program(workers: u32, map_fd: i32) -> Vec<u64> {
    let w = workers.max(1) as i32;
    let mut ops = vec![
        mov(R6, R1),
        ldw(R2, R6, 0),  // data
        ldw(R3, R6, 4),  // data_end
        ldw(R7, R6, 16), // rx_queue_index
        mul_k(R7, w),
        mov_k(R0, 0),
    ];
    need(&mut ops, 14);
    fold_words(&mut ops, &[0, 4, 8]);
    // EtherType, loaded little-endian.
    ops.push(ldh(R5, R2, 12));
    ops.push(jeq_k(R5, 0x0008, "ipv4"));
    ops.push(jeq_k(R5, 0xdd86, "ipv6"));
    ops.push(jeq_k(R5, 0x0081, "vlan"));
    ops.push(ja("done"));
    ops.push(Op::Label("ipv4"));
    ipv4(&mut ops, 14, "frag4");
    ops.push(Op::Label("frag4"));
    fold_words(&mut ops, &[26, 30]);
    ops.push(ja("done"));
    ops.push(Op::Label("vlan"));
    need(&mut ops, 18);
    ops.extend([ldh(R5, R2, 16), jne_k(R5, 0x0008, "done")]);
    ipv4(&mut ops, 18, "fragv");
    ops.push(Op::Label("fragv"));
    fold_words(&mut ops, &[30, 34]);
    ops.push(ja("done"));
    ops.push(Op::Label("ipv6"));
    need(&mut ops, 58);
    fold_words(&mut ops, &[22, 26, 30, 34, 38, 42, 46, 50, 54]);
    ops.push(Op::Label("done"));
    ops.extend([mov(R1, R0), rsh_k(R1, 16), xor(R0, R1), mov(R1, R0), rsh_k(R1, 8), xor(R0, R1), and_k(R0, 0xffff)]);
    ops.push(mod_k(R0, w));
    ops.push(add(R7, R0));
    ops.push(mov(R2, R7));
    // r1 = the map (a 16-byte load of its descriptor, marked as a map descriptor).
    ops.push(i(0x18, R1, 1, 0, map_fd));
    ops.push(i(0, 0, 0, 0, 0));
    ops.push(mov_k(R3, 2)); // XDP_PASS when the slot is empty
    ops.push(i(0x85, 0, 0, 0, 51)); // bpf_redirect_map
    ops.push(i(0x95, 0, 0, 0, 0)); // exit
    assemble(ops)
}

fn assemble(ops: Vec<Op>) -> Vec<u64> {
    let mut at = std::collections::HashMap::new();
    let mut pc = 0i32;
    for op in &ops {
        match op {
            Op::Label(l) => {
                at.insert(*l, pc);
            }
            _ => pc += 1,
        }
    }
    let mut out = Vec::with_capacity(pc as usize);
    for op in ops {
        match op {
            Op::Label(_) => {}
            Op::I(insn) => out.push(insn.encode()),
            Op::Jump { code, dst, src, imm, to } => {
                let here = out.len() as i32;
                let off = at.get(to).copied().unwrap_or(here + 1) - here - 1;
                out.push(Insn { code, dst, src, off: off as i16, imm }.encode());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny interpreter of exactly the instructions `program` emits, to
    /// check the slot it picks without loading it into a kernel.
    fn run(prog: &[u64], frame: &[u8], queue: u32) -> (u64, u64) {
        let mut r = [0u64; 11];
        let (data, end) = (1u64 << 32, (1u64 << 32) + frame.len() as u64);
        r[1] = 0;
        let mut pc = 0usize;
        loop {
            let w = prog[pc];
            let (code, dst, src) = (w as u8, ((w >> 8) & 0xf) as usize, ((w >> 12) & 0xf) as usize);
            let off = (w >> 16) as u16 as i16 as i64;
            let imm = (w >> 32) as u32 as i32 as i64 as u64;
            let load = |base: u64, n: usize| -> u64 {
                if base == 0 {
                    // ctx: data, data_end, .., rx_queue_index at 16
                    return match off {
                        0 => data,
                        4 => end,
                        16 => queue as u64,
                        _ => panic!("ctx offset {off}"),
                    };
                }
                let at = (base as i64 + off - data as i64) as usize;
                assert!(at + n <= frame.len(), "read past the frame at {at}");
                let mut v = 0u64;
                for k in (0..n).rev() {
                    v = (v << 8) | frame[at + k] as u64;
                }
                v
            };
            let jump = |cond: bool, pc: &mut usize| {
                if cond {
                    *pc = (*pc as i64 + off) as usize;
                }
            };
            match code {
                0xbf => r[dst] = r[src],
                0xb7 => r[dst] = imm,
                0x61 => r[dst] = load(r[src], 4),
                0x69 => r[dst] = load(r[src], 2),
                0x07 => r[dst] = r[dst].wrapping_add(imm),
                0x0f => r[dst] = r[dst].wrapping_add(r[src]),
                0x27 => r[dst] = r[dst].wrapping_mul(imm),
                0xaf => r[dst] ^= r[src],
                0x77 => r[dst] >>= imm,
                0x57 => r[dst] &= imm,
                0x97 => r[dst] %= imm,
                0x2d => jump(r[dst] > r[src], &mut pc),
                0x15 => jump(r[dst] == imm, &mut pc),
                0x55 => jump(r[dst] != imm, &mut pc),
                0x05 => jump(true, &mut pc),
                0x18 => {
                    r[dst] = 0xfeed;
                    pc += 1;
                }
                0x85 => return (r[1], r[2]),
                c => panic!("unexpected opcode {c:#x}"),
            }
            pc += 1;
        }
    }

    fn udp4(sport: u16, tagged: bool, frag: bool) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
        if tagged {
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x0a]);
        }
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0, 0, 46, 0, 0, if frag { 0x20 } else { 0x40 }, 0, 64, 17, 0, 0]);
        f.extend_from_slice(&[10, 0, 0, 1, 10, 0, 1, 2]);
        f.extend_from_slice(&sport.to_be_bytes());
        f.extend_from_slice(&[0x08, 0x00, 0, 26, 0, 0]);
        f.resize(f.len().max(60), 0);
        f
    }

    #[test]
    fn one_flow_always_gets_one_slot_and_flows_spread() {
        let p = program(4, 7);
        let mut seen = std::collections::HashSet::new();
        for sport in 1000..1064u16 {
            let (map, slot) = run(&p, &udp4(sport, false, false), 0);
            assert_eq!(map, 0xfeed);
            assert!(slot < 4);
            // The same flow, again and with another payload: same slot.
            let mut again = udp4(sport, false, false);
            *again.last_mut().unwrap() = 0x55;
            assert_eq!(run(&p, &again, 0).1, slot);
            seen.insert(slot);
        }
        assert_eq!(seen.len(), 4, "64 flows use all four workers");
        // Queue 1 uses the slots after queue 0's.
        let s = run(&p, &udp4(1000, false, false), 1).1;
        assert!((4..8).contains(&s));
    }

    #[test]
    fn tagged_fragments_short_and_other_frames_stay_inside_the_frame() {
        let p = program(2, 3);
        for f in [udp4(5, true, false), udp4(5, true, true), udp4(5, false, true)] {
            assert!(run(&p, &f, 0).1 < 2);
        }
        // Fragments of one datagram hash on addresses only: any payload bytes, same slot.
        let (mut a, mut b) = (udp4(5, false, true), udp4(6, false, true));
        a[40] = 1;
        b[40] = 2;
        assert_eq!(run(&p, &a, 0).1, run(&p, &b, 0).1);
        for len in 0..40 {
            let f = udp4(9, false, false);
            assert!(run(&p, &f[..len], 0).1 < 2, "runt of {len} bytes");
        }
        let mut ipv6 = vec![0u8; 62];
        ipv6[12..14].copy_from_slice(&[0x86, 0xdd]);
        assert!(run(&p, &ipv6, 0).1 < 2);
        assert_eq!(program(1, 3).len(), p.len());
    }
}
