//! Actions and their primitives.

use super::*;

impl L {
    pub(super) fn load_actions(&mut self, root: &J) -> LResult<()> {
        for a in root.arr_opt("actions")? {
            let name = a.name()?.to_string();
            let id = a.get("id")?.u64()?;
            let mut params = Vec::new();
            let mut off = 0u32;
            for p in a.arr_opt("runtime_data")? {
                let pname = p.name()?.to_string();
                let w = p.get("bitwidth")?.u32()?;
                if w > MAX_WIDTH {
                    return p.get("bitwidth")?.err("bitwidth out of range");
                }
                params.push((pname, w, off));
                off += bits::limbs(w) as u32;
            }
            let mut prims = Vec::new();
            let ctx = Ctx { params: &params, parser: false };
            let plist = a.arr_opt("primitives")?;
            for p in &plist {
                prims.push(self.prim(p, ctx)?);
            }
            for (k, p) in prims.iter().enumerate() {
                let t = match p {
                    Prim::Jump(t) | Prim::JumpIfZero(_, t) => *t,
                    _ => continue,
                };
                if t > prims.len() {
                    return plist[k].err(format!("jump target {t} out of range"));
                }
            }
            let idx = self.actions.len();
            self.act_by_id.insert(id, idx);
            self.act_by_name.entry(name.clone()).or_insert(idx);
            self.actions.push(Action { name, id: id as u32, params, data_limbs: off, prims });
        }
        Ok(())
    }

    pub(super) fn prim(&self, p: &J, ctx: Ctx) -> LResult<Prim> {
        let op = p.get("op")?.str()?;
        let params = p.arr_opt("parameters")?;
        let n = params.len();
        let need = |k: usize| -> LResult<()> {
            if n < k {
                p.err(format!("primitive \"{op}\" needs {k} parameters, has {n}"))
            } else {
                Ok(())
            }
        };
        let ce = |i: usize| self.cexpr(&params[i], ctx);
        let named = |i: usize, ty: &str, map: &HashMap<String, usize>| -> LResult<usize> {
            let pj = &params[i];
            let t = pj.get("type")?.str()?;
            if t != ty {
                return pj.err(format!("expected a {ty}, found \"{t}\""));
            }
            let v = pj.get("value")?;
            let name = v.str()?;
            match map.get(name) {
                Some(&x) => Ok(x),
                None => v.err(format!("unknown {ty} \"{name}\"")),
            }
        };
        Ok(match op {
            "assign" | "modify_field" => {
                need(2)?;
                let dst = self.lvalue(&params[0], ctx)?;
                let src = ce(1)?;
                match (&dst, &*src.e) {
                    (LValue::Field(d), Expr::Field(s)) if d.width > 64 && d.width == s.width && !d.varbit => {
                        Prim::Copy { dst: *d, src: *s }
                    }
                    (LValue::Field(d), Expr::Param { off, width }) if d.width > 64 && d.width == *width => {
                        Prim::CopyParam { dst: *d, off: *off }
                    }
                    _ => Prim::Assign { dst, src },
                }
            }
            "add_to_field" | "subtract_from_field" => {
                need(2)?;
                let dst = self.lvalue(&params[0], ctx)?;
                let de = self.expr(&params[0], ctx)?;
                let v = self.expr(&params[1], ctx)?;
                let o = if op == "add_to_field" { BinOp::Add } else { BinOp::Sub };
                let e = Expr::Binary(o, Box::new(de), Box::new(v));
                let (_, m) = bound(&e, &|h, i| self.hdr_field_width(h, i));
                Prim::Assign { dst, src: CExpr::new(e, m <= 120) }
            }
            "assign_VL" => {
                need(2)?;
                Prim::AssignVL { dst: self.lvalue(&params[0], ctx)?, src: self.lvalue(&params[1], ctx)? }
            }
            "assign_header" | "copy_header" => {
                need(2)?;
                Prim::AssignHeader { dst: self.hdr_ref(&params[0], ctx)?, src: self.hdr_ref(&params[1], ctx)? }
            }
            "assign_union" => {
                need(2)?;
                Prim::AssignUnion { dst: self.union_ref(&params[0], ctx)?, src: self.union_ref(&params[1], ctx)? }
            }
            "assign_header_stack" => {
                need(2)?;
                Prim::AssignStack {
                    dst: self.stack(&params[0].get("value")?)?,
                    src: self.stack(&params[1].get("value")?)?,
                }
            }
            "assign_union_stack" => {
                need(2)?;
                let us = |j: &J| -> LResult<usize> {
                    let v = j.get("value")?;
                    let n = v.str()?;
                    self.ustack_by_name.get(n).copied().map_or_else(|| v.err("unknown header union stack"), Ok)
                };
                Prim::AssignUnionStack { dst: us(&params[0])?, src: us(&params[1])? }
            }
            "add_header" => {
                need(1)?;
                Prim::SetValid(self.hdr_ref(&params[0], ctx)?, true)
            }
            "remove_header" => {
                need(1)?;
                Prim::SetValid(self.hdr_ref(&params[0], ctx)?, false)
            }
            "push" | "pop" => {
                need(2)?;
                let ty = params[0].get("type")?.str()?;
                let v = params[0].get("value")?;
                let cnt = ce(1)?;
                if ty == "header_union_stack" {
                    let n = v.str()?;
                    let Some(&us) = self.ustack_by_name.get(n) else {
                        return v.err(format!("unknown header union stack \"{n}\""));
                    };
                    if op == "push" {
                        Prim::PushUnion { stack: us, n: cnt }
                    } else {
                        Prim::PopUnion { stack: us, n: cnt }
                    }
                } else {
                    let s = self.stack(&v)?;
                    if op == "push" {
                        Prim::Push { stack: s, n: cnt }
                    } else {
                        Prim::Pop { stack: s, n: cnt }
                    }
                }
            }
            "_jump" => {
                need(1)?;
                let t = int_value(&params[0].get("value")?)?;
                Prim::Jump(usize::try_from(t).or_else(|_| params[0].err("bad jump target"))?)
            }
            "_jump_if_zero" => {
                need(2)?;
                let t = int_value(&params[1].get("value")?)?;
                Prim::JumpIfZero(ce(0)?, usize::try_from(t).or_else(|_| params[1].err("bad jump target"))?)
            }
            "exit" => Prim::Exit,
            "mark_to_drop" | "drop" => Prim::MarkToDrop,
            "no_op" => Prim::Nop,
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => {
                need(1)?;
                let session = ce(0)?;
                let fl = if n >= 2 { self.field_list_param(&params[1])? } else { None };
                if op == "clone_ingress_pkt_to_egress" {
                    Prim::CloneI2E { session, field_list: fl }
                } else {
                    Prim::CloneE2E { session, field_list: fl }
                }
            }
            "resubmit" | "recirculate" => {
                let fl = if n >= 1 { self.field_list_param(&params[0])? } else { None };
                if op == "resubmit" {
                    Prim::Resubmit(fl)
                } else {
                    Prim::Recirculate(fl)
                }
            }
            "generate_digest" => {
                need(2)?;
                let id = int_value(&params[1].get("value")?)?;
                match self.ll_by_id.get(&(id as u64)) {
                    Some(&l) => Prim::Digest { learn_list: l },
                    None => return params[1].err(format!("unknown learn list id {id}")),
                }
            }
            "modify_field_rng_uniform" => {
                need(3)?;
                Prim::RngUniform { dst: self.lvalue(&params[0], ctx)?, lo: ce(1)?, hi: ce(2)? }
            }
            "modify_field_with_hash_based_offset" => {
                need(4)?;
                Prim::HashOffset {
                    dst: self.lvalue(&params[0], ctx)?,
                    base: ce(1)?,
                    calc: named(2, "calculation", &self.calc_by_name)?,
                    size: ce(3)?,
                }
            }
            "register_read" => {
                need(3)?;
                Prim::RegisterRead {
                    dst: self.lvalue(&params[0], ctx)?,
                    reg: named(1, "register_array", &self.reg_by_name)?,
                    index: ce(2)?,
                }
            }
            "register_write" => {
                need(3)?;
                Prim::RegisterWrite { reg: named(0, "register_array", &self.reg_by_name)?, index: ce(1)?, src: ce(2)? }
            }
            "count" => {
                need(2)?;
                Prim::Count { ctr: named(0, "counter_array", &self.ctr_by_name)?, index: ce(1)? }
            }
            "execute_meter" => {
                need(3)?;
                Prim::ExecuteMeter {
                    meter: named(0, "meter_array", &self.mtr_by_name)?,
                    index: ce(1)?,
                    dst: self.lvalue(&params[2], ctx)?,
                }
            }
            "truncate" => {
                need(1)?;
                Prim::Truncate(ce(0)?)
            }
            "assert" | "assume" => {
                need(1)?;
                Prim::Assert(ce(0)?)
            }
            "log_msg" => {
                need(1)?;
                let fmt = params[0].get("value")?.str()?.to_string();
                let mut args = Vec::new();
                if n >= 2 {
                    let v = params[1].get("value")?;
                    // p4c writes an empty vector as `{}` (jsoncpp's empty value).
                    let empty = v.v.as_object().is_some_and(|o| o.is_empty());
                    for a in if empty { Vec::new() } else { v.arr()? } {
                        args.push(self.cexpr(&a, ctx)?);
                    }
                }
                Prim::LogMsg { fmt, args }
            }
            other => return p.get("op")?.err(format!("unknown primitive \"{other}\"")),
        })
    }
}
