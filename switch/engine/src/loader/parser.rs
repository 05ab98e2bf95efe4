//! Parsers: states, operations, transition keys and values.

use super::*;

impl L {
    pub(super) fn load_parser(&self, pj: &J) -> LResult<Parser> {
        let name = pj.name()?.to_string();
        let states_j = pj.get("parse_states")?.arr()?;
        let mut by_name = HashMap::new();
        for (i, s) in states_j.iter().enumerate() {
            by_name.insert(s.name()?.to_string(), i);
        }
        let resolve = |j: &J| -> LResult<Option<usize>> {
            if j.is_null() {
                return Ok(None);
            }
            let n = j.str()?;
            match by_name.get(n) {
                Some(&i) => Ok(Some(i)),
                None => j.err(format!("unknown parse state \"{n}\"")),
            }
        };
        let init = resolve(&pj.get_or_null("init_state"))?;
        let ctx = Ctx { params: &[], parser: true };
        let mut states = Vec::new();
        for s in &states_j {
            let sname = s.name()?.to_string();
            let mut ops = Vec::new();
            for o in s.arr_opt("parser_ops")? {
                let op = o.get("op")?.str()?;
                let params = o.arr_opt("parameters")?;
                let need = |k: usize| -> LResult<()> {
                    if params.len() < k {
                        o.err(format!("parser op \"{op}\" needs {k} parameters"))
                    } else {
                        Ok(())
                    }
                };
                ops.push(match op {
                    "extract" | "extract_VL" => {
                        need(if op == "extract" { 1 } else { 2 })?;
                        let p0 = &params[0];
                        let ty = p0.get("type")?.str()?;
                        let val = p0.get("value")?;
                        let target = match ty {
                            "regular" => Ok(HdrRef::Static(self.header(&val)?)),
                            "stack" => Err(self.stack(&val)?),
                            "union_stack" => {
                                let p = val.arr()?;
                                if p.len() != 2 {
                                    return val.err("expected [union stack, member]");
                                }
                                let n = p[0].str()?;
                                let Some(&us) = self.ustack_by_name.get(n) else {
                                    return p[0].err(format!("unknown header union stack \"{n}\""));
                                };
                                let mname = p[1].str()?;
                                let u0 = match self.union_stacks[us].unions.first() {
                                    Some(&u) => u,
                                    None => return p[0].err("empty union stack"),
                                };
                                let m = self.unions[u0].headers.iter().position(|&h| {
                                    let hn = &self.headers[h].name;
                                    hn == mname || hn.ends_with(&format!(".{mname}"))
                                });
                                let Some(m) = m else { return p[1].err(format!("no union member \"{mname}\"")) };
                                if op == "extract_VL" {
                                    return o.err("extract_VL into a union stack is not supported");
                                }
                                ops.push(ParserOp::ExtractUnionStack(us, m));
                                continue;
                            }
                            "expression" => Ok(self.hdr_ref(&val, ctx)?),
                            other => return p0.get("type")?.err(format!("unsupported extract target \"{other}\"")),
                        };
                        if op == "extract" {
                            match target {
                                Ok(h) => ParserOp::Extract(h),
                                Err(s) => ParserOp::ExtractStack(s),
                            }
                        } else {
                            let len = self.cexpr(&params[1], ctx)?;
                            match target {
                                Ok(h) => ParserOp::ExtractVL(h, len),
                                Err(s) => ParserOp::ExtractVLStack(s, len),
                            }
                        }
                    }
                    "set" => {
                        need(2)?;
                        let set = ParserOp::Set(self.lvalue(&params[0], ctx)?, self.cexpr(&params[1], ctx)?);
                        if params[1].get("type")?.str()? == "lookahead" {
                            // BMv2: PacketTooShort unless the lookahead's bytes remain.
                            let width = params[1].get("value")?.arr()?.get(1).map(|w| w.u32()).transpose()?;
                            ops.push(ParserOp::Require(width.unwrap_or(0).div_ceil(8)));
                        }
                        ops.push(set);
                        continue;
                    }
                    "verify" => {
                        need(2)?;
                        // the error as a plain integer is BMv2's older form
                        let err = match params[1].v.as_u64() {
                            Some(code) => CExpr::new(Expr::Const(code as i128), true),
                            None => self.cexpr(&params[1], ctx)?,
                        };
                        ParserOp::Verify(self.cexpr(&params[0], ctx)?, err)
                    }
                    "advance" => {
                        need(1)?;
                        ParserOp::Advance(self.cexpr(&params[0], ctx)?)
                    }
                    "shift" => {
                        need(1)?;
                        // BMv2 reads a plain integer (bytes); a type-value object also works here
                        let bytes = match params[0].v.as_u64() {
                            Some(n) => Expr::Const(n as i128),
                            None => self.expr(&params[0], ctx)?,
                        };
                        let e = Expr::Binary(BinOp::Mul, Box::new(bytes), Box::new(Expr::Const(8)));
                        ParserOp::Advance(CExpr::new(e, true))
                    }
                    "primitive" => {
                        need(1)?;
                        ParserOp::Prim(self.prim(&params[0], ctx)?)
                    }
                    other => return o.get("op")?.err(format!("unknown parser op \"{other}\"")),
                });
            }
            let mut key = Vec::new();
            let mut key_widths = Vec::new();
            for k in s.arr_opt("transition_key")? {
                let ty = k.get("type")?.str()?;
                let (part, w) = match ty {
                    "field" => {
                        let f = self.field_slot(&k.get("value")?)?;
                        (KeyPart::Field(f), f.width)
                    }
                    "lookahead" => {
                        let p = k.get("value")?.arr()?;
                        if p.len() != 2 {
                            return k.err("expected [offset, width]");
                        }
                        let w = p[1].u32()?;
                        if w == 0 || w > MAX_WIDTH {
                            return p[1].err("lookahead width out of range");
                        }
                        (KeyPart::Lookahead { off: p[0].u32()?, width: w }, w)
                    }
                    "stack_field" | "union_stack_field" => match self.expr(&k, ctx)? {
                        Expr::DynField(h, i) => {
                            let w = self.hdr_field_width(&h, i);
                            (KeyPart::DynField(*h, i), w)
                        }
                        _ => return k.err("bad stack field"),
                    },
                    other => return k.get("type")?.err(format!("unsupported transition key type \"{other}\"")),
                };
                key.push(part);
                key_widths.push(w.div_ceil(8) * 8);
            }
            let key_bits: u32 = key_widths.iter().sum();
            let kl = bits::limbs(key_bits);
            let mut transitions = Vec::new();
            for t in s.arr_opt("transitions")? {
                let mut ty = t.opt("type").map(|x| x.str()).transpose()?.unwrap_or("hexstr");
                // older JSON: {"value": "default"} without a type
                if ty == "hexstr" && t.v.get("value").and_then(|v| v.as_str()) == Some("default") {
                    ty = "default";
                }
                let mask = match t.opt("mask") {
                    Some(m) => {
                        let b = hex_to_big(&m)?;
                        let mut l = vec![0u64; kl];
                        bits::big_to_limbs(&b, key_bits.max(1), &mut l);
                        Some(l)
                    }
                    None => None,
                };
                let value = match ty {
                    "default" => TransValue::Default,
                    "hexstr" => {
                        let vj = t.get("value")?;
                        let b = hex_to_big(&vj)?;
                        let mut l = vec![0u64; kl];
                        bits::big_to_limbs(&b, key_bits.max(1), &mut l);
                        TransValue::Hex { value: l, mask }
                    }
                    "parse_vset" => {
                        let vj = t.get("value")?;
                        let n = vj.str()?;
                        match self.vset_by_name.get(n) {
                            Some(&v) => TransValue::Vset { vset: v, mask },
                            None => return vj.err(format!("unknown parse value set \"{n}\"")),
                        }
                    }
                    other => return t.get("type")?.err(format!("unknown transition type \"{other}\"")),
                };
                let next = resolve(&t.get_or_null("next_state"))?;
                transitions.push(Transition { value, next });
            }
            states.push(ParseState { name: sname, ops, key, key_widths, key_bits, transitions });
        }
        Ok(Parser { name, init, states })
    }
}
