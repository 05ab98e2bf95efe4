//! The action primitives.

use super::*;

pub(super) fn run_prims(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, prims: &[Prim], data: &[u64], cursor: usize) {
    let p = c.p;
    let mut pc = 0usize;
    let mut steps = 0usize;
    let env = c.env(data, cursor);
    while pc < prims.len() {
        steps += 1;
        if steps > MAX_ACTION_STEPS || pkt.exit {
            return;
        }
        let prim = &prims[pc];
        pc += 1;
        match prim {
            Prim::SetConst { slot, v } => {
                if let Some(x) = pkt.hv.get_mut(*slot as usize) {
                    *x = *v;
                }
            }
            Prim::Move { dst, src, mask } => {
                let v = pkt.hv.get(*src as usize).copied().unwrap_or(0);
                if let Some(x) = pkt.hv.get_mut(*dst as usize) {
                    *x = v & mask;
                }
            }
            Prim::SetParam { dst, off, mask } => {
                let v = data.get(*off as usize).copied().unwrap_or(0);
                if let Some(x) = pkt.hv.get_mut(*dst as usize) {
                    *x = v & mask;
                }
            }
            Prim::Assign { dst, src } => assign(&env, pkt, dst, src),
            Prim::SetShort { dst, mask, src } => {
                let v = match crate::plan::fast::value(&env, pkt, env.fast_of(src)) {
                    Some(v) => v,
                    None => eval_i128(&env, pkt, &src.e),
                };
                if let Some(x) = pkt.hv.get_mut(*dst as usize) {
                    *x = v as u64 & mask;
                }
            }
            Prim::Copy { dst, src } => {
                let n = dst.nlimbs().min(src.nlimbs());
                let (s0, d0) = (src.slot as usize, dst.slot as usize);
                if s0 + n <= pkt.hv.len() && d0 + n <= pkt.hv.len() {
                    pkt.hv.copy_within(s0..s0 + n, d0);
                }
            }
            Prim::CopyParam { dst, off } => {
                let o = *off as usize;
                let n = dst.nlimbs();
                let src = data.get(o..o + n).unwrap_or(&[]);
                let d = pkt.limbs_mut(*dst);
                for (i, a) in d.iter_mut().enumerate() {
                    *a = src.get(i).copied().unwrap_or(0);
                }
                bits::mask_limbs(d, dst.width);
            }
            Prim::AssignVL { dst, src } => {
                if let (Some(d), Some(s)) = (lvalue_slot(&env, pkt, dst), lvalue_slot(&env, pkt, src)) {
                    let v: Vec<u64> = pkt.limbs(s).to_vec();
                    let dl = pkt.limbs_mut(d);
                    for (i, a) in dl.iter_mut().enumerate() {
                        *a = v.get(i).copied().unwrap_or(0);
                    }
                    let (hd, hs) = (header_of_slot(p, d.slot), header_of_slot(p, s.slot));
                    if let (Some(hd), Some(hs)) = (hd, hs) {
                        pkt.vl[hd] = pkt.vl[hs];
                    }
                }
            }
            Prim::AssignHeader { dst, src } => {
                if let (Some(d), Some(s)) = (resolve_hdr(&env, pkt, dst), resolve_hdr(&env, pkt, src)) {
                    header_fields_copy(p, pkt, d, s);
                }
            }
            Prim::AssignUnion { dst, src } => {
                if let (Some(d), Some(s)) = (resolve_union(&env, pkt, dst), resolve_union(&env, pkt, src)) {
                    let (dh, sh) = (&p.unions[d].headers, &p.unions[s].headers);
                    for (a, b) in dh.iter().zip(sh) {
                        header_fields_copy(p, pkt, *a, *b);
                    }
                }
            }
            Prim::AssignStack { dst, src } => {
                if let (Some(d), Some(s)) = (p.stacks.get(*dst), p.stacks.get(*src)) {
                    for (a, b) in d.headers.iter().zip(&s.headers) {
                        header_fields_copy(p, pkt, *a, *b);
                    }
                    pkt.stack_next[*dst] = pkt.stack_next[*src];
                }
            }
            Prim::AssignUnionStack { dst, src } => {
                if let (Some(d), Some(s)) = (p.union_stacks.get(*dst), p.union_stacks.get(*src)) {
                    for (ua, ub) in d.unions.iter().zip(&s.unions) {
                        for (a, b) in p.unions[*ua].headers.iter().zip(&p.unions[*ub].headers) {
                            header_fields_copy(p, pkt, *a, *b);
                        }
                    }
                    pkt.ustack_next[*dst] = pkt.ustack_next[*src];
                }
            }
            Prim::SetValid(h, v) => {
                if let Some(h) = resolve_hdr(&env, pkt, h) {
                    if *v && !pkt.valid.get(h).copied().unwrap_or(true) {
                        zero_header(p, pkt, h);
                    }
                    set_valid(p, pkt, h, *v);
                }
            }
            Prim::Push { stack, n } | Prim::Pop { stack, n } => {
                let k = eval_c(&env, pkt, n).clamp(0, 1 << 16) as usize;
                if let Some(s) = p.stacks.get(*stack) {
                    let hs = &s.headers;
                    let mut next = pkt.stack_next[*stack];
                    if matches!(prim, Prim::Push { .. }) {
                        stack_push(p, pkt, hs, k, &mut next);
                    } else {
                        stack_pop(p, pkt, hs, k, &mut next);
                    }
                    pkt.stack_next[*stack] = next;
                }
            }
            Prim::PushUnion { stack, n } | Prim::PopUnion { stack, n } => {
                let k = eval_c(&env, pkt, n).clamp(0, 1 << 16) as usize;
                if let Some(us) = p.union_stacks.get(*stack) {
                    let nu = us.unions.len();
                    let k = k.min(nu);
                    let members = us.unions.first().map_or(0, |&u| p.unions[u].headers.len());
                    let mut next = pkt.ustack_next[*stack];
                    for m in 0..members {
                        let hs: Vec<usize> = us.unions.iter().filter_map(|&u| p.unions[u].headers.get(m).copied()).collect();
                        let mut nx = next;
                        if matches!(prim, Prim::PushUnion { .. }) {
                            stack_push(p, pkt, &hs, k, &mut nx);
                        } else {
                            stack_pop(p, pkt, &hs, k, &mut nx);
                        }
                        if m + 1 == members {
                            next = nx;
                        }
                    }
                    pkt.ustack_next[*stack] = next;
                }
            }
            Prim::Jump(t) => pc = *t,
            Prim::JumpIfZero(cond, t) => {
                if eval_c(&env, pkt, cond) == 0 {
                    pc = *t;
                }
            }
            Prim::Exit => {
                pkt.exit = true;
                return;
            }
            Prim::MarkToDrop => {
                pkt.set_opt(p.std.egress_spec, c.host.config.drop_port as u64);
                pkt.set_opt(p.std.mcast_grp, 0);
            }
            Prim::CloneI2E { session, field_list } => {
                pkt.clone_i2e = Some((eval_c(&env, pkt, session) as u32, *field_list));
            }
            Prim::CloneE2E { session, field_list } => {
                pkt.clone_e2e = Some((eval_c(&env, pkt, session) as u32, *field_list));
            }
            Prim::Resubmit(fl) => pkt.resubmit = Some(*fl),
            Prim::Recirculate(fl) => pkt.recirculate = Some(*fl),
            Prim::Digest { learn_list } => pkt.digest = Some(*learn_list),
            Prim::RngUniform { dst, lo, hi } => {
                let lo = eval_c(&env, pkt, lo);
                let hi = eval_c(&env, pkt, hi);
                let v = if hi <= lo {
                    lo
                } else {
                    let span = (hi - lo + 1) as u128;
                    lo + ((crate::hash::fast_random() as u128) % span) as i128
                };
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, v);
                }
            }
            Prim::HashOffset { dst, base, calc, size } => {
                let base = eval_c(&env, pkt, base);
                let size = eval_c(&env, pkt, size);
                let h = compute_calc(p, c.plan, w, pkt, *calc) as i128;
                let v = if size <= 0 { base } else { base + h % size };
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, v);
                }
            }
            Prim::RegisterRead { dst, reg, index } => {
                let i = eval_c(&env, pkt, index);
                if let (Some(r), Some(f)) = (c.rt.registers.get(*reg), lvalue_slot(&env, pkt, dst)) {
                    let mut l = [0u64; 4];
                    let n = bits::limbs(r.width());
                    if n <= 4 {
                        let ok = usize::try_from(i).is_ok_and(|i| r.read(i, &mut l[..n]));
                        if !ok {
                            l = [0; 4];
                        }
                        let d = pkt.limbs_mut(f);
                        for (k, x) in d.iter_mut().enumerate() {
                            *x = l.get(k).copied().unwrap_or(0);
                        }
                        bits::mask_limbs(d, f.width);
                    } else {
                        let mut v = vec![0u64; n];
                        if usize::try_from(i).is_ok_and(|i| r.read(i, &mut v)) {
                            let d = pkt.limbs_mut(f);
                            for (k, x) in d.iter_mut().enumerate() {
                                *x = v.get(k).copied().unwrap_or(0);
                            }
                            bits::mask_limbs(d, f.width);
                        }
                    }
                }
            }
            Prim::RegisterWrite { reg, index, src } => {
                let i = eval_c(&env, pkt, index);
                if let (Some(r), Ok(i)) = (c.rt.registers.get(*reg), usize::try_from(i)) {
                    if src.narrow && r.width() <= 128 {
                        let v = eval_i128(&env, pkt, &src.e) as u128;
                        r.write(i, &[v as u64, (v >> 64) as u64]);
                    } else {
                        let v = eval_big(&env, pkt, &src.e);
                        let mut l = vec![0u64; bits::limbs(r.width())];
                        bits::big_to_limbs(&v, r.width(), &mut l);
                        r.write(i, &l);
                    }
                }
            }
            Prim::Count { ctr, index } => {
                let i = eval_c(&env, pkt, index);
                if let Some(cell) = usize::try_from(i).ok().and_then(|i| c.rt.counters.get(*ctr)?.get(i)) {
                    cell.count(pkt.data.len() as u64);
                }
            }
            Prim::ExecuteMeter { meter, index, dst } => {
                let i = eval_c(&env, pkt, index);
                let amount = if p.meters.get(*meter).is_some_and(|m| m.bytes) { pkt.data.len() as u64 } else { 1 };
                let color = usize::try_from(i)
                    .ok()
                    .and_then(|i| c.rt.meters.get(*meter)?.get(i))
                    .and_then(|cell| cell.lock().ok().map(|mut m| m.execute(c.now, amount)));
                if let (Some(b), Some(colour)) = (w.counts.block(), color) {
                    b.colour(*meter, colour);
                }
                let color = color.unwrap_or(externs::GREEN);
                if let Some(f) = lvalue_slot(&env, pkt, dst) {
                    store_i128(pkt, f, color as i128);
                }
            }
            Prim::Truncate(n) => {
                let v = eval_c(&env, pkt, n);
                pkt.truncate = Some(v.clamp(0, usize::MAX as i128).to_usize().unwrap_or(usize::MAX));
            }
            Prim::Assert(cond) => {
                if !eval_bool(&env, pkt, cond) {
                    // BMv2 aborts the process; we drop the packet instead.
                    pkt.dropped_by_assert = true;
                    pkt.exit = true;
                    return;
                }
            }
            Prim::LogMsg { fmt, args } => {
                if w.tracing() {
                    let mut msg = String::new();
                    let mut vals = args.iter().map(|a| eval_c(&env, pkt, a));
                    let mut rest = fmt.as_str();
                    while let Some(i) = rest.find("{}") {
                        msg.push_str(&rest[..i]);
                        match vals.next() {
                            Some(v) => msg.push_str(&v.to_string()),
                            None => msg.push_str("{}"),
                        }
                        rest = &rest[i + 2..];
                    }
                    msg.push_str(rest);
                    w.emit(&format!("log_msg: {msg}"));
                }
            }
            Prim::Nop => {}
        }
    }
}
