//! The parser: extraction, parser operations, select and value sets.

use super::*;
use crate::plan::layout::Layout;

/// Extracts header `h` at `cursor` (`lay`: the plan's fixed layout of `h`, if any).
pub(super) fn extract_into(
    p: &Prog,
    lay: Option<&Layout>,
    pkt: &mut Pkt,
    h: usize,
    cursor: &mut usize,
    vl_bits: Option<u32>,
) -> Result<(), ErrKind> {
    let Some(hdr) = p.headers.get(h) else { return Err(ErrKind::InvalidArg) };
    let var = hdr.varbit_field.map(|_| vl_bits.unwrap_or(0)).unwrap_or(0);
    if let (Some(vf), Some(vb)) = (hdr.varbit_field, vl_bits) {
        if vb > hdr.fields[vf].width {
            return Err(ErrKind::HeaderTooShort);
        }
    }
    let total = hdr.fixed_bits as usize + var as usize;
    let start = *cursor * 8;
    if start + total > pkt.data.len() * 8 {
        return Err(ErrKind::TooShort);
    }
    if let (Some(lay), None) = (lay, vl_bits) {
        if let Some(d) = pkt.data.get(*cursor..) {
            lay.extract(d, &mut pkt.hv);
        }
        pkt.vl[h] = 0;
        set_valid(p, pkt, h, true);
        *cursor += total.div_ceil(8);
        return Ok(());
    }
    let mut bit = start;
    for f in &hdr.fields {
        let w = if f.varbit { var } else { f.width };
        if f.width <= 64 && !f.varbit {
            let v = bits::get_bits(&pkt.data, bit, w).unwrap_or(0);
            pkt.hv[f.slot as usize] = v;
        } else {
            let n = f.nlimbs();
            let s = f.slot as usize;
            let (data, hv) = (&pkt.data, &mut pkt.hv);
            if let Some(dst) = hv.get_mut(s..s + n) {
                bits::get_bits_wide(data, bit, w, dst);
            }
        }
        bit += w as usize;
    }
    pkt.vl[h] = var;
    set_valid(p, pkt, h, true);
    *cursor += total.div_ceil(8);
    Ok(())
}

/// The plan's fixed layout of header `h` (none for the interpreter).
#[inline]
pub(super) fn layout_of<'a>(c: &Ctx<'a>, h: usize) -> Option<&'a Layout> {
    c.plan.and_then(|pl| pl.layouts.get(h)).and_then(Option::as_ref)
}

pub(super) fn set_valid(p: &Prog, pkt: &mut Pkt, h: usize, v: bool) {
    if v {
        if let Some(u) = p.headers.get(h).and_then(|x| x.union) {
            for &o in &p.unions[u].headers {
                if o != h {
                    pkt.valid[o] = false;
                }
            }
        }
    }
    if let Some(x) = pkt.valid.get_mut(h) {
        *x = v;
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum ErrKind {
    TooShort,
    StackOob,
    HeaderTooShort,
    Timeout,
    InvalidArg,
    Code(u64),
}

pub(super) fn parse_and_verify(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt) {
    let p = c.p;
    let res = match p.parsers.first() {
        Some(parser) => run_parser(c, w, pkt, parser),
        None => Ok(0),
    };
    let code = match res {
        Ok(cursor) => {
            pkt.payload_off = cursor;
            p.errors.no_error
        }
        Err((e, cursor)) => {
            pkt.payload_off = cursor.min(pkt.data.len());
            match e {
                ErrKind::TooShort => p.errors.packet_too_short,
                ErrKind::StackOob => p.errors.stack_out_of_bounds,
                ErrKind::HeaderTooShort => p.errors.header_too_short,
                ErrKind::Timeout => p.errors.parser_timeout,
                ErrKind::InvalidArg => p.errors.parser_invalid_argument,
                ErrKind::Code(c) => c,
            }
        }
    };
    pkt.set_opt(p.std.parser_error, code);
    // checksum verification
    for ck in &p.checksums {
        if !ck.verify {
            continue;
        }
        let env = c.env(&[], 0);
        if let Some(cond) = &ck.cond {
            if !eval_bool(&env, pkt, cond) {
                continue;
            }
        }
        let v = compute_calc(p, c.plan, w, pkt, ck.calc);
        let cur = pkt.limbs(ck.target).first().copied().unwrap_or(0);
        if cur != v & bits::mask64(ck.target.width.min(64)) {
            pkt.set_opt(p.std.checksum_error, 1);
        }
    }
}

pub(super) fn run_parser(c: &Ctx, w: &mut WorkerState, pkt: &mut Pkt, parser: &Parser) -> Result<usize, (ErrKind, usize)> {
    let p = c.p;
    let mut cursor = 0usize;
    let mut state = parser.init;
    let mut steps = 0;
    while let Some(si) = state {
        steps += 1;
        if steps > MAX_PARSER_STEPS {
            return Err((ErrKind::Timeout, cursor));
        }
        let Some(st) = parser.states.get(si) else { return Err((ErrKind::InvalidArg, cursor)) };
        if w.tracing() {
            w.emit(&format!("parser {}: state {} at byte {cursor}", parser.name, st.name));
        }
        let sets = c.plan.and_then(|pl| pl.parser_sets.get(si)).map_or(&[][..], |v| &v[..]);
        for (oi, op) in st.ops.iter().enumerate() {
            if let Some(Some(set)) = sets.get(oi) {
                run_set_ops(pkt, std::slice::from_ref(set), &[]);
                continue;
            }
            let r = match op {
                ParserOp::Extract(h) => {
                    let env = c.env(&[], cursor);
                    match resolve_hdr(&env, pkt, h) {
                        Some(h) => extract_into(p, layout_of(c, h), pkt, h, &mut cursor, None),
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractStack(s) => {
                    let n = pkt.stack_next.get(*s).copied().unwrap_or(0) as usize;
                    match p.stacks.get(*s).and_then(|st| st.headers.get(n)) {
                        Some(&h) => {
                            let r = extract_into(p, layout_of(c, h), pkt, h, &mut cursor, None);
                            if r.is_ok() {
                                pkt.stack_next[*s] += 1;
                            }
                            r
                        }
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractUnionStack(us, m) => {
                    let n = pkt.ustack_next.get(*us).copied().unwrap_or(0) as usize;
                    match p.union_stacks.get(*us).and_then(|st| st.unions.get(n)).and_then(|&u| p.unions[u].headers.get(*m)) {
                        Some(&h) => {
                            let r = extract_into(p, layout_of(c, h), pkt, h, &mut cursor, None);
                            if r.is_ok() {
                                pkt.ustack_next[*us] += 1;
                            }
                            r
                        }
                        None => Err(ErrKind::StackOob),
                    }
                }
                ParserOp::ExtractVL(_, len) | ParserOp::ExtractVLStack(_, len) => {
                    let env = c.env(&[], cursor);
                    let bitsv = eval_c(&env, pkt, len);
                    let target = match op {
                        ParserOp::ExtractVL(h, _) => resolve_hdr(&env, pkt, h),
                        ParserOp::ExtractVLStack(s, _) => {
                            let n = pkt.stack_next.get(*s).copied().unwrap_or(0) as usize;
                            p.stacks.get(*s).and_then(|st| st.headers.get(n)).copied()
                        }
                        _ => None,
                    };
                    match (target, u32::try_from(bitsv)) {
                        (Some(hh), Ok(b)) if b % 8 == 0 => {
                            let r = extract_into(p, None, pkt, hh, &mut cursor, Some(b));
                            if r.is_ok() {
                                if let ParserOp::ExtractVLStack(s, _) = op {
                                    pkt.stack_next[*s] += 1;
                                }
                            }
                            r
                        }
                        (None, _) => Err(ErrKind::StackOob),
                        _ => Err(ErrKind::InvalidArg),
                    }
                }
                ParserOp::Set(lv, e) => {
                    let env = c.env(&[], cursor);
                    assign(&env, pkt, lv, e);
                    Ok(())
                }
                ParserOp::Verify(cond, err) => {
                    let env = c.env(&[], cursor);
                    if eval_bool(&env, pkt, cond) {
                        Ok(())
                    } else {
                        Err(ErrKind::Code(eval_c(&env, pkt, err) as u64))
                    }
                }
                ParserOp::Advance(n) => {
                    let env = c.env(&[], cursor);
                    let b = eval_c(&env, pkt, n);
                    if b < 0 || b % 8 != 0 {
                        Err(ErrKind::InvalidArg)
                    } else {
                        let nb = (b / 8) as usize;
                        if cursor.saturating_add(nb) > pkt.data.len() {
                            Err(ErrKind::TooShort)
                        } else {
                            cursor += nb;
                            Ok(())
                        }
                    }
                }
                ParserOp::Prim(prim) => {
                    run_prims(c, w, pkt, std::slice::from_ref(prim), &[], cursor);
                    Ok(())
                }
                ParserOp::Require(n) => {
                    if pkt.data.len().saturating_sub(cursor) < *n as usize {
                        Err(ErrKind::TooShort)
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(e) = r {
                return Err((e, cursor));
            }
        }
        // the plan's one-word select where the state has one (`run_parser`
        // runs the first parser, whose states the plan's selects follow)
        state = match c.plan.and_then(|pl| pl.selects.get(si)).and_then(Option::as_ref) {
            // no case matches and no default: the parse ends, accepted (see `select`)
            Some(sel) => sel.next(&pkt.hv, &pkt.data, cursor).unwrap_or(None),
            None => select(c, w, pkt, st, cursor).map_err(|e| (e, cursor))?,
        };
    }
    Ok(cursor)
}

pub(super) fn key_part_value(c: &Ctx, pkt: &Pkt, part: &KeyPart, cursor: usize, out: &mut [u64]) -> u32 {
    match part {
        KeyPart::Field(f) => {
            let l = pkt.limbs(*f);
            for (i, o) in out.iter_mut().enumerate() {
                *o = l.get(i).copied().unwrap_or(0);
            }
            f.width
        }
        KeyPart::DynField(h, k) => {
            let env = c.env(&[], cursor);
            match dyn_field(&env, pkt, h, *k) {
                Some(f) => {
                    let l = pkt.limbs(f);
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = l.get(i).copied().unwrap_or(0);
                    }
                    f.width
                }
                None => {
                    out.iter_mut().for_each(|x| *x = 0);
                    0
                }
            }
        }
        KeyPart::Lookahead { off, width } => {
            let start = cursor * 8 + *off as usize;
            if !bits::get_bits_wide(&pkt.data, start, *width, out) {
                out.iter_mut().for_each(|x| *x = 0);
            }
            *width
        }
    }
}

/// Shifts `acc` left by `n` bits and ORs in `v` (limbs, little-endian).
pub(super) fn shl_or(acc: &mut [u64], n: u32, v: &[u64]) {
    if n > 0 {
        let words = (n / 64) as usize;
        let b = n % 64;
        for i in (0..acc.len()).rev() {
            let src = i.checked_sub(words);
            let mut x = src.map_or(0, |s| acc[s] << b);
            if b > 0 {
                if let Some(s) = src.and_then(|s| s.checked_sub(1)) {
                    x |= acc[s] >> (64 - b);
                }
            }
            acc[i] = x;
        }
    }
    for (a, x) in acc.iter_mut().zip(v) {
        *a |= *x;
    }
}

pub(super) fn select(c: &Ctx, w: &mut WorkerState, pkt: &Pkt, st: &ParseState, cursor: usize) -> Result<Option<usize>, ErrKind> {
    if st.transitions.is_empty() {
        return Ok(None);
    }
    if st.key.is_empty() {
        for t in &st.transitions {
            if let TransValue::Default = t.value {
                return Ok(t.next);
            }
        }
        return Ok(st.transitions.first().and_then(|t| t.next));
    }
    let kl = bits::limbs(st.key_bits.max(1));
    let mut keybuf = std::mem::take(&mut w.scratch);
    if keybuf.len() < kl {
        keybuf.resize(kl, 0);
    }
    let key = &mut keybuf[..kl];
    key.iter_mut().for_each(|x| *x = 0);
    let mut compressed: Option<Vec<u64>> = None;
    let mut part = std::mem::take(&mut w.tmp);
    for (i, kp) in st.key.iter().enumerate() {
        let pw = st.key_widths[i];
        let nl = bits::limbs(pw.max(1));
        if part.len() < nl {
            part.resize(nl, 0);
        }
        key_part_value(c, pkt, kp, cursor, &mut part[..nl]);
        shl_or(key, pw, &part[..nl]);
    }
    let needs_vset = st.transitions.iter().any(|t| matches!(t.value, TransValue::Vset { .. }));
    if needs_vset {
        let mut ck = vec![0u64; kl];
        for kp in st.key.iter() {
            let wmax = st.key_bits;
            let nl = bits::limbs(wmax.max(1));
            if part.len() < nl {
                part.resize(nl, 0);
            }
            let rw = key_part_value(c, pkt, kp, cursor, &mut part[..nl]);
            shl_or(&mut ck, rw, &part[..nl]);
        }
        compressed = Some(ck);
    }
    w.tmp = part;
    let r = match_transitions(c, st, key, compressed.as_deref());
    w.scratch = keybuf;
    r
}

pub(super) fn match_transitions(c: &Ctx, st: &ParseState, key: &[u64], compressed: Option<&[u64]>) -> Result<Option<usize>, ErrKind> {
    for t in &st.transitions {
        let hit = match &t.value {
            TransValue::Default => true,
            TransValue::Hex { value, mask } => match mask {
                Some(m) => key.iter().zip(value).zip(m).all(|((k, v), m)| k & m == v & m),
                None => key == &value[..],
            },
            TransValue::Vset { vset, mask } => {
                let ck = compressed.unwrap_or(key);
                let set = c.rt.vsets.get(*vset).map(|s| s.load_full());
                set.is_some_and(|s| {
                    s.iter().any(|(v, vm)| {
                        ck.iter().enumerate().all(|(i, k)| {
                            let m = vm.get(i).copied().unwrap_or(0) & mask.as_ref().map_or(u64::MAX, |m| m.get(i).copied().unwrap_or(0));
                            k & m == v.get(i).copied().unwrap_or(0) & m
                        })
                    })
                })
            }
        };
        if hit {
            return Ok(t.next);
        }
    }
    // No case matches and the state has no default: BMv2 ends the parse there, accepted with
    // parser_error NoError (its default next state is none). p4c's JSON leaves the default
    // out of a select without one; p4compile writes the NoMatch reject the spec asks for.
    Ok(None)
}
