//! The deparser, calculations and checksum update.

use super::*;
use crate::plan::Plan;

/// Appends header `h` (`plan`: use its fixed layout if it has one).
pub(super) fn emit_header(p: &Prog, plan: Option<&Plan>, pkt: &Pkt, h: usize, buf: &mut Vec<u8>) {
    if let Some(lay) = plan.and_then(|pl| pl.layouts.get(h)).and_then(Option::as_ref) {
        lay.emit(&pkt.hv, buf);
        return;
    }
    let Some(hdr) = p.headers.get(h) else { return };
    let var = pkt.vl.get(h).copied().unwrap_or(0);
    let mut bw = bits::BitWriter::new(buf);
    for f in &hdr.fields {
        if f.width <= 64 && !f.varbit {
            bw.put(f.width, pkt.hv.get(f.slot as usize).copied().unwrap_or(0));
        } else {
            let w = if f.varbit { var } else { f.width };
            let l = pkt.limbs(*f);
            if f.varbit {
                // the varbit value is right-aligned in its limbs: emit its low `w` bits
                let mut tmp = [0u64; 1];
                let src: &[u64] = if w <= 64 {
                    tmp[0] = l.first().copied().unwrap_or(0);
                    &tmp
                } else {
                    l
                };
                bw.put_limbs(w, src);
            } else {
                bw.put_limbs(w, l);
            }
        }
    }
    bw.finish();
}

pub fn deparse(p: &Prog, plan: Option<&Plan>, pkt: &Pkt, buf: &mut Vec<u8>) {
    buf.clear();
    for &h in &p.deparse_order {
        if pkt.valid.get(h).copied().unwrap_or(false) {
            emit_header(p, plan, pkt, h, buf);
        }
    }
    if let Some(payload) = pkt.data.get(pkt.payload_off..) {
        buf.extend_from_slice(payload);
    }
}

pub(super) fn header_of_slot(p: &Prog, slot: u32) -> Option<usize> {
    p.headers.iter().position(|h| h.fields.iter().any(|f| f.slot == slot))
}


/// Serializes the calculation's inputs and runs its algorithm.
pub(super) fn compute_calc(p: &Prog, plan: Option<&Plan>, w: &mut WorkerState, pkt: &Pkt, calc: usize) -> u64 {
    let Some(cl) = p.calcs.get(calc) else { return 0 };
    if let Some(cal) = plan.and_then(|pl| pl.calcs.get(calc)).and_then(Option::as_ref) {
        if cal.needs.iter().all(|&h| pkt.valid.get(h as usize).copied().unwrap_or(false)) {
            let mut block = [0u8; crate::plan::layout::BLOCK];
            cal.fill(&pkt.hv, &mut block);
            return cl.algo.compute(&block[..cal.layout.bytes as usize]);
        }
    }
    let mut buf = std::mem::take(&mut w.calc);
    buf.clear();
    let mut last_hdr: Option<usize> = None;
    let mut bw = bits::BitWriter::new(&mut buf);
    for (i, inp) in cl.input.iter().enumerate() {
        match inp {
            CalcInput::Field(f) => {
                let hh = cl.input_headers.get(i).copied().flatten();
                if let Some(h) = hh {
                    if !pkt.valid.get(h).copied().unwrap_or(false) {
                        continue;
                    }
                    if !p.headers[h].metadata {
                        last_hdr = Some(h);
                    }
                }
                bw.put_limbs(f.width, pkt.limbs(*f));
            }
            CalcInput::Header(h) => {
                if !pkt.valid.get(*h).copied().unwrap_or(false) {
                    continue;
                }
                last_hdr = Some(*h);
                for f in &p.headers[*h].fields {
                    bw.put_limbs(f.width, pkt.limbs(*f));
                }
            }
            CalcInput::Const { value, width } => bw.put_limbs(*width, value),
            CalcInput::Payload => {
                bw.finish();
                let pos = last_hdr.and_then(|h| p.deparse_order.iter().position(|&x| x == h));
                if let Some(pos) = pos {
                    for &h in &p.deparse_order[pos + 1..] {
                        if pkt.valid.get(h).copied().unwrap_or(false) {
                            emit_header(p, plan, pkt, h, bw.out);
                        }
                    }
                }
                if let Some(pl) = pkt.data.get(pkt.payload_off..) {
                    bw.out.extend_from_slice(pl);
                }
            }
        }
    }
    bw.finish();
    let v = cl.algo.compute(&buf);
    w.calc = buf;
    v
}

pub(super) fn update_checksums(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    let p = c.p;
    for ck in &p.checksums {
        if !ck.update {
            continue;
        }
        if let Some(cond) = &ck.cond {
            let env = c.env(&[], 0);
            if !eval_bool(&env, pkt, cond) {
                continue;
            }
        }
        let v = compute_calc(p, c.plan, w, pkt, ck.calc);
        store_i128(pkt, ck.target, v as i128);
    }
}

pub(super) fn run_deparser_prims(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    if !c.p.deparser_prims.is_empty() {
        run_prims(c, w, pkt, &c.p.deparser_prims, &[], 0);
    }
}
