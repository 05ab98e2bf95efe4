//! The XDP program of the `xdp` ports, written as eBPF instructions (no
//! compiler, no libbpf): it sends every frame to the AF_XDP socket of one
//! worker, chosen by a hash of the frame's flow, so the frames of one flow
//! always reach the same worker and stay in order.
//!
//! One program and one XSKMAP serve every port: the kernel keeps a table of
//! the XDP programs attached anywhere (the XDP dispatcher) and waits a full
//! RCU grace period, holding the rtnl lock, each time that set changes. With
//! a program per port, attaching 14 ports took 190-430 ms and detaching them
//! at exit 230-800 ms (one grace period per port, one after another); with one
//! shared program only the first attach and the last detach change the set.
//! A hash map (the ports map) gives each interface its first slot and its
//! number of receive queues.
//!
//! Slot = `first + rx_queue_index * workers + hash % workers` in the XSKMAP.
//! The hash folds 32-bit words that are the same for every frame of a flow:
//! - IPv4 (untagged or one 802.1Q tag): addresses and the first L4 word (the
//!   ports) — addresses only for fragments, whose L4 header is elsewhere;
//! - IPv6 (untagged): addresses and the first L4 word;
//! - anything else (ARP, MPLS, QinQ, runts): the MAC addresses, or 0.
//! If the interface is not in the ports map, the queue is beyond the ones
//! it had when the switch started, or the slot holds no socket, the frame
//! goes on to the kernel (XDP_PASS).
//!
//! With `stamp` (`--queue-delay` on) the program first writes the frame's
//! arrival time (`bpf_ktime_get_ns`, CLOCK_MONOTONIC) into 8 bytes of XDP
//! metadata just before the frame (`bpf_xdp_adjust_meta(ctx, -8)`); AF_XDP
//! copies metadata into the frame area with the frame, so the worker finds
//! the stamp at the descriptor's address minus 8. Where the driver gives no
//! metadata room the helper fails and the frame goes on unstamped (the
//! worker then cannot bound its wait, and never drops it for that).

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
const R8: u8 = 8;
const R10: u8 = 10;

/// `bpf_map_lookup_elem`, `bpf_ktime_get_ns`, `bpf_redirect_map` and
/// `bpf_xdp_adjust_meta` (helper numbers).
const MAP_LOOKUP_ELEM: i32 = 1;
const KTIME_GET_NS: i32 = 5;
const REDIRECT_MAP: i32 = 51;
const XDP_ADJUST_META: i32 = 54;
const XDP_PASS: i32 = 2;

/// The ports map's value: the interface's first XSKMAP slot and its receive
/// queues, two native-endian u32 (the program reads them at offsets 0 and 4).
pub fn port_entry(first_slot: u32, queues: u32) -> [u8; 8] {
    let mut v = [0u8; 8];
    v[..4].copy_from_slice(&first_slot.to_ne_bytes());
    v[4..].copy_from_slice(&queues.to_ne_bytes());
    v
}

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
fn stw(dst: u8, off: i16, src: u8) -> Op {
    i(0x63, dst, src, off, 0)
}
fn stdw(dst: u8, off: i16, src: u8) -> Op {
    i(0x7b, dst, src, off, 0)
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
fn jge(dst: u8, src: u8, to: &'static str) -> Op {
    Op::Jump { code: 0x3d, dst, src, imm: 0, to }
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
/// `dst = map` (a 16-byte load of the map's descriptor, marked as one).
fn ld_map(ops: &mut Vec<Op>, dst: u8, fd: i32) {
    ops.extend([i(0x18, dst, 1, 0, fd), i(0, 0, 0, 0, 0)]);
}
fn call(helper: i32) -> Op {
    i(0x85, 0, 0, 0, helper)
}
fn exit() -> Op {
    i(0x95, 0, 0, 0, 0)
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

/// Writes the arrival time into 8 bytes of metadata before the frame (r6 =
/// ctx); if the helper refuses, or the verifier-facing check `data_meta + 8
/// <= data` fails, the frame goes on unstamped. Clobbers r0-r5.
fn stamp_arrival(ops: &mut Vec<Op>) {
    ops.extend([
        mov(R1, R6),
        mov_k(R2, -8),
        call(XDP_ADJUST_META),
        jne_k(R0, 0, "stamped"),
        call(KTIME_GET_NS),
        ldw(R2, R6, 8), // data_meta
        ldw(R3, R6, 0), // data
        mov(R4, R2),
        add_k(R4, 8),
        jgt(R4, R3, "stamped"),
        stdw(R2, 0, R0),
        Op::Label("stamped"),
    ]);
}

/// The program for `workers` sockets per queue, redirecting through the
/// XSKMAP `xsk_fd` at the slots the ports map `ports_fd` (ifindex ->
/// [`port_entry`]) gives; with `stamp`, each frame first gets its arrival
/// time (module docs).
pub fn program(workers: u32, xsk_fd: i32, ports_fd: i32, stamp: bool) -> Vec<u64> {
    let w = workers.max(1) as i32;
    let mut ops = vec![mov(R6, R1)];
    if stamp {
        stamp_arrival(&mut ops);
    }
    ops.extend([
        ldw(R7, R6, 16), // rx_queue_index
        ldw(R1, R6, 12), // ingress_ifindex: the key, on the stack
        stw(R10, -4, R1),
        mov(R2, R10),
        add_k(R2, -4),
    ]);
    ld_map(&mut ops, R1, ports_fd);
    ops.extend([
        call(MAP_LOOKUP_ELEM),
        jeq_k(R0, 0, "pass"),
        ldw(R8, R0, 0), // first slot
        ldw(R1, R0, 4), // receive queues
        jge(R7, R1, "pass"),
        mul_k(R7, w),
        add(R7, R8),
        ldw(R2, R6, 0), // data
        ldw(R3, R6, 4), // data_end
        mov_k(R0, 0),
    ]);
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
    ld_map(&mut ops, R1, xsk_fd);
    ops.push(mov_k(R3, XDP_PASS)); // when the slot is empty
    ops.push(call(REDIRECT_MAP));
    ops.push(exit());
    ops.push(Op::Label("pass"));
    ops.extend([mov_k(R0, XDP_PASS), exit()]);
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

    const XSK: i32 = 7;
    const PORTS: i32 = 9;
    /// Where the interpreter puts the frame, the stack and the map values.
    const DATA: u64 = 1 << 32;
    const STACK: u64 = 2 << 32;
    const VALUES: u64 = 3 << 32;
    /// What `bpf_ktime_get_ns` returns in the interpreter.
    const NOW: u64 = 0x0123_4567_89ab_cdef;

    /// What a frame arriving on interface `ifindex`, receive queue `queue`,
    /// gets: `Some(slot)` redirected through the XSKMAP, `None` passed on.
    fn run(prog: &[u64], frame: &[u8], ifindex: u32, queue: u32, ports: &[(u32, [u8; 8])]) -> Option<u64> {
        run_with_meta(prog, frame, ifindex, queue, ports, true).0
    }

    /// A tiny interpreter of exactly the instructions `program` emits, with
    /// `ports` as the ports map (ifindex -> [`port_entry`]), to check the slot
    /// without loading the program into a kernel. `meta_room`: whether
    /// `bpf_xdp_adjust_meta` succeeds (the driver leaves room for metadata).
    /// Returns the slot and the 8 bytes of metadata before the frame, if the
    /// program made room for them. After every helper call r1-r5 hold garbage,
    /// as the verifier assumes.
    fn run_with_meta(prog: &[u64], frame: &[u8], ifindex: u32, queue: u32, ports: &[(u32, [u8; 8])], meta_room: bool) -> (Option<u64>, Option<u64>) {
        let mut r = [0u64; 11];
        let mut stack = [0u8; 512];
        // data_meta == data: no metadata yet; DATA + 1: the driver has none (the kernel's marker).
        let mut meta_at = if meta_room { DATA } else { DATA + 1 };
        let mut meta = [0u8; 8];
        r[10] = STACK;
        let end = DATA + frame.len() as u64;
        let mut pc = 0usize;
        let result = loop {
            let w = prog[pc];
            let (code, dst, src) = (w as u8, ((w >> 8) & 0xf) as usize, ((w >> 12) & 0xf) as usize);
            let off = (w >> 16) as u16 as i16 as i64;
            let imm = (w >> 32) as u32 as i32 as i64 as u64;
            let bytes = |at: u64, n: usize, stack: &[u8]| -> Vec<u8> {
                if (STACK - 512..STACK).contains(&at) {
                    let a = 512 - (STACK - at) as usize;
                    stack[a..a + n].to_vec()
                } else if (VALUES..VALUES + 8 * ports.len() as u64).contains(&at) {
                    let (k, a) = (((at - VALUES) / 8) as usize, ((at - VALUES) % 8) as usize);
                    assert!(a + n <= 8, "read past a map value");
                    ports[k].1[a..a + n].to_vec()
                } else {
                    let a = (at - DATA) as usize;
                    assert!(a + n <= frame.len(), "read past the frame at {a}");
                    frame[a..a + n].to_vec()
                }
            };
            let le = |b: Vec<u8>| b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64);
            let load = |base: u64, n: usize, stack: &[u8]| -> u64 {
                if base == 0 {
                    // ctx: data, data_end, data_meta, ingress_ifindex at 12, rx_queue_index at 16
                    return match off {
                        0 => DATA,
                        4 => end,
                        8 => meta_at,
                        12 => ifindex as u64,
                        16 => queue as u64,
                        _ => panic!("ctx offset {off}"),
                    };
                }
                le(bytes((base as i64 + off) as u64, n, stack))
            };
            let jump = |cond: bool, pc: &mut usize| {
                if cond {
                    *pc = (*pc as i64 + off) as usize;
                }
            };
            match code {
                0xbf => r[dst] = r[src],
                0xb7 => r[dst] = imm,
                0x61 => r[dst] = load(r[src], 4, &stack),
                0x69 => r[dst] = load(r[src], 2, &stack),
                0x63 => {
                    let a = 512 - (STACK - (r[dst] as i64 + off) as u64) as usize;
                    stack[a..a + 4].copy_from_slice(&(r[src] as u32).to_le_bytes());
                }
                0x7b => {
                    let at = (r[dst] as i64 + off) as u64;
                    assert!(meta_at == DATA - 8 && at == DATA - 8, "an 8-byte store only into the metadata made room for");
                    meta = r[src].to_le_bytes();
                }
                0x07 => r[dst] = r[dst].wrapping_add(imm),
                0x0f => r[dst] = r[dst].wrapping_add(r[src]),
                0x27 => r[dst] = r[dst].wrapping_mul(imm),
                0xaf => r[dst] ^= r[src],
                0x77 => r[dst] >>= imm,
                0x57 => r[dst] &= imm,
                0x97 => r[dst] %= imm,
                0x2d => jump(r[dst] > r[src], &mut pc),
                0x3d => jump(r[dst] >= r[src], &mut pc),
                0x15 => jump(r[dst] == imm, &mut pc),
                0x55 => jump(r[dst] != imm, &mut pc),
                0x05 => jump(true, &mut pc),
                0x18 => {
                    r[dst] = imm;
                    pc += 1;
                }
                0x85 => {
                    match imm as i32 {
                        MAP_LOOKUP_ELEM => {
                            assert_eq!(r[1], PORTS as u64, "lookup in the ports map");
                            let key = le(bytes(r[2], 4, &stack)) as u32;
                            r[0] = ports.iter().position(|p| p.0 == key).map_or(0, |k| VALUES + 8 * k as u64);
                        }
                        REDIRECT_MAP => {
                            assert_eq!(r[1], XSK as u64, "redirect through the XSKMAP");
                            assert_eq!(r[3], 2, "XDP_PASS when the slot is empty");
                            break Some(r[2]);
                        }
                        XDP_ADJUST_META => {
                            assert_eq!((r[1], r[2] as i64), (0, -8), "adjust_meta(ctx, -8)");
                            r[0] = if meta_room {
                                meta_at = DATA - 8;
                                0
                            } else {
                                -95i64 as u64 // EOPNOTSUPP
                            };
                        }
                        KTIME_GET_NS => r[0] = NOW,
                        h => panic!("unexpected helper {h}"),
                    }
                    for x in &mut r[1..=5] {
                        *x = 0xdead_beef_dead_beef;
                    }
                }
                0x95 => {
                    assert_eq!(r[0], 2, "XDP_PASS");
                    break None;
                }
                c => panic!("unexpected opcode {c:#x}"),
            }
            pc += 1;
        };
        (result, (meta_at == DATA - 8).then(|| u64::from_le_bytes(meta)))
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

    /// One port, interface 5, two queues starting at slot 0.
    fn one_port() -> Vec<(u32, [u8; 8])> {
        vec![(5, port_entry(0, 2))]
    }

    #[test]
    fn one_flow_always_gets_one_slot_and_flows_spread() {
        let p = program(4, XSK, PORTS, false);
        let ports = one_port();
        let mut seen = std::collections::HashSet::new();
        for sport in 1000..1064u16 {
            let slot = run(&p, &udp4(sport, false, false), 5, 0, &ports).expect("redirected");
            assert!(slot < 4);
            // The same flow, again and with another payload: same slot.
            let mut again = udp4(sport, false, false);
            *again.last_mut().unwrap() = 0x55;
            assert_eq!(run(&p, &again, 5, 0, &ports), Some(slot));
            seen.insert(slot);
        }
        assert_eq!(seen.len(), 4, "64 flows use all four workers");
        // Queue 1 uses the slots after queue 0's.
        let s = run(&p, &udp4(1000, false, false), 5, 1, &ports).unwrap();
        assert!((4..8).contains(&s));
    }

    #[test]
    fn each_interface_has_its_own_slots_and_unknown_ones_pass() {
        let p = program(2, XSK, PORTS, false);
        // Interface 5: two queues at slots 0-3; interface 9: one queue at 4-5.
        let ports = vec![(5, port_entry(0, 2)), (9, port_entry(4, 1))];
        let f = udp4(77, false, false);
        let h = run(&p, &f, 5, 0, &ports).unwrap();
        assert!(h < 2);
        assert_eq!(run(&p, &f, 5, 1, &ports), Some(2 + h));
        assert_eq!(run(&p, &f, 9, 0, &ports), Some(4 + h), "same flow, same worker, the other port's slot");
        // A queue the interface did not have at start, or an interface the
        // switch does not own: to the kernel, never another port's socket.
        assert_eq!(run(&p, &f, 9, 1, &ports), None);
        assert_eq!(run(&p, &f, 6, 0, &ports), None);
    }

    #[test]
    fn tagged_fragments_short_and_other_frames_stay_inside_the_frame() {
        let p = program(2, XSK, PORTS, false);
        let ports = one_port();
        let slot = |f: &[u8]| run(&p, f, 5, 0, &ports).expect("redirected");
        for f in [udp4(5, true, false), udp4(5, true, true), udp4(5, false, true)] {
            assert!(slot(&f) < 2);
        }
        // Fragments of one datagram hash on addresses only: any payload bytes, same slot.
        let (mut a, mut b) = (udp4(5, false, true), udp4(6, false, true));
        a[40] = 1;
        b[40] = 2;
        assert_eq!(slot(&a), slot(&b));
        for len in 0..40 {
            let f = udp4(9, false, false);
            assert!(slot(&f[..len]) < 2, "runt of {len} bytes");
        }
        let mut ipv6 = vec![0u8; 62];
        ipv6[12..14].copy_from_slice(&[0x86, 0xdd]);
        assert!(slot(&ipv6) < 2);
        assert_eq!(program(1, XSK, PORTS, false).len(), p.len());
    }

    /// The helpers a program calls.
    fn helpers(prog: &[u64]) -> Vec<i32> {
        prog.iter().filter(|w| **w as u8 == 0x85).map(|w| (*w >> 32) as i32).collect()
    }

    #[test]
    fn a_stamping_program_writes_the_arrival_time_before_the_frame_and_picks_the_same_slots() {
        let ports = one_port();
        let (plain, stamping) = (program(4, XSK, PORTS, false), program(4, XSK, PORTS, true));
        assert!(!helpers(&plain).contains(&XDP_ADJUST_META) && !helpers(&plain).contains(&KTIME_GET_NS), "no stamp unless asked");
        assert_eq!(&helpers(&stamping)[..2], &[XDP_ADJUST_META, KTIME_GET_NS]);
        for sport in 1000..1032u16 {
            for (tagged, frag) in [(false, false), (true, false), (false, true)] {
                let f = udp4(sport, tagged, frag);
                let (slot, meta) = run_with_meta(&stamping, &f, 5, 1, &ports, true);
                assert_eq!(slot, run(&plain, &f, 5, 1, &ports), "same slot with and without the stamp");
                assert_eq!(meta, Some(NOW), "the arrival time sits in the 8 bytes before the frame");
            }
        }
        // Runts and frames of interfaces the switch does not own get the stamp too (harmless on XDP_PASS).
        assert_eq!(run_with_meta(&stamping, &[0u8; 10], 5, 0, &ports, true), (run(&plain, &[0u8; 10], 5, 0, &ports), Some(NOW)));
        assert_eq!(run_with_meta(&stamping, &udp4(1, false, false), 6, 0, &ports, true), (None, Some(NOW)));
    }

    #[test]
    fn without_room_for_metadata_a_frame_goes_on_unstamped() {
        let ports = one_port();
        let (plain, stamping) = (program(2, XSK, PORTS, false), program(2, XSK, PORTS, true));
        for sport in 0..16u16 {
            let f = udp4(sport, false, false);
            let (slot, meta) = run_with_meta(&stamping, &f, 5, 0, &ports, false);
            assert!(slot.is_some(), "redirected, not dropped");
            assert_eq!((slot, meta), (run(&plain, &f, 5, 0, &ports), None));
        }
    }
}
