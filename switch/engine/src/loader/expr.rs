//! Expressions, header and union references, l-values.

use super::*;

impl L {
    pub(super) fn cexpr(&self, j: &J, ctx: Ctx) -> LResult<CExpr> {
        let e = self.expr(j, ctx)?;
        let (_, maxb) = bound(&e, &|h, i| self.hdr_field_width(h, i));
        Ok(CExpr::new(e, maxb <= 120))
    }

    /// A type-value object or an `{op,left,right}` object.
    pub(super) fn expr(&self, j: &J, ctx: Ctx) -> LResult<Expr> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            return self.op_expr(j, ctx);
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "field" => match self.field_ref(&val)? {
                FRef::Slot(s) => Ok(Expr::Field(s)),
                FRef::Valid(h) => Ok(Expr::Valid(HdrRef::Static(h))),
            },
            "hexstr" => {
                let b = hex_to_big(&val)?;
                Ok(match bits::big_to_i128(&b) {
                    Some(v) if v.unsigned_abs() < (1u128 << 120) => Expr::Const(v),
                    _ => Expr::BigConst(Box::new(b)),
                })
            }
            "bool" => Ok(Expr::Const(val.bool()? as i128)),
            "runtime_data" | "local" => {
                let i = val.u64()? as usize;
                match ctx.params.get(i) {
                    Some(p) => Ok(Expr::Param { off: p.2, width: p.1 }),
                    None => val.err(format!("runtime_data index {i} out of range")),
                }
            }
            "expression" => self.expr(&val, ctx),
            "stack_field" => {
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [header stack, field]");
                }
                let s = self.stack(&p[0])?;
                let fname = p[1].str()?;
                let ti = match self.hdr_type_of(&HdrRef::StackLast(s)) {
                    Some(t) => t,
                    None => return p[0].err("empty header stack"),
                };
                match self.field_in_type(ti, fname) {
                    Some(k) => Ok(Expr::DynField(Box::new(HdrRef::StackLast(s)), k)),
                    None => p[1].err(format!("no field \"{fname}\"")),
                }
            }
            "union_stack_field" => {
                let p = val.arr()?;
                if p.len() != 3 {
                    return val.err("expected [union stack, member, field]");
                }
                let n = p[0].str()?;
                let Some(&us) = self.ustack_by_name.get(n) else {
                    return p[0].err(format!("unknown header union stack \"{n}\""));
                };
                let (m, k) = self.union_member_field(us, &p[1], &p[2])?;
                Ok(Expr::DynField(Box::new(HdrRef::UnionMember(Box::new(UnionRef::StackLast(us)), m)), k))
            }
            "lookahead" => {
                if !ctx.parser {
                    return j.err("lookahead outside a parser");
                }
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [offset, width]");
                }
                let off = p[0].u32()?;
                let width = p[1].u32()?;
                if width == 0 || width > MAX_WIDTH {
                    return p[1].err(format!("lookahead width must be 1..={MAX_WIDTH} bits"));
                }
                Ok(Expr::Lookahead { off, width })
            }
            "register" => {
                let p = val.arr()?;
                if p.len() != 2 {
                    return val.err("expected [register array, index]");
                }
                let reg = self.register(&p[0])?;
                Ok(Expr::Register { reg, index: Box::new(self.expr(&p[1], ctx)?) })
            }
            "header" => {
                let h = self.header(&val)?;
                // A header used as a value: its validity (only meaningful under `valid`).
                Ok(Expr::Valid(HdrRef::Static(h)))
            }
            other => j.err(format!("unsupported value type \"{other}\" in an expression")),
        }
    }

    pub(super) fn union_member_field(&self, us: usize, m: &J, f: &J) -> LResult<(usize, usize)> {
        let mname = m.str()?;
        let u0 = match self.union_stacks[us].unions.first() {
            Some(&u) => u,
            None => return m.err("empty union stack"),
        };
        let union = &self.unions[u0];
        let pos = union.headers.iter().position(|&h| {
            let hn = &self.headers[h].name;
            hn == mname || hn.ends_with(&format!(".{mname}"))
        });
        let Some(mi) = pos else { return m.err(format!("no union member \"{mname}\"")) };
        let ti = self.headers[union.headers[mi]].type_idx;
        let fname = f.str()?;
        match self.field_in_type(ti, fname) {
            Some(k) => Ok((mi, k)),
            None => f.err(format!("no field \"{fname}\"")),
        }
    }

    pub(super) fn register(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.reg_by_name.get(n) {
            Some(&r) => Ok(r),
            None => j.err(format!("unknown register array \"{n}\"")),
        }
    }

    /// Header-valued expression.
    pub(super) fn hdr_ref(&self, j: &J, ctx: Ctx) -> LResult<HdrRef> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            let op = j.get("op")?.str()?;
            let l = j.get_or_null("left");
            let r = j.get_or_null("right");
            return match op {
                "dereference_header_stack" => {
                    let s = self.stack(&l.get("value")?)?;
                    Ok(HdrRef::StackElem(s, Box::new(self.expr(&r, ctx)?)))
                }
                "access_union_header" => {
                    let u = self.union_ref(&l, ctx)?;
                    let m = r.u64()? as usize;
                    Ok(HdrRef::UnionMember(Box::new(u), m))
                }
                "?" => {
                    let c = self.expr(&j.get("cond")?, ctx)?;
                    let (a, b) = (self.hdr_ref(&l, ctx)?, self.hdr_ref(&r, ctx)?);
                    if self.hdr_type_of(&a) != self.hdr_type_of(&b) {
                        return j.err("the two headers of \"?\" have different types");
                    }
                    Ok(HdrRef::Cond(Box::new(c), Box::new(a), Box::new(b)))
                }
                _ => j.err(format!("operation \"{op}\" does not produce a header")),
            };
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "header" | "regular" => Ok(HdrRef::Static(self.header(&val)?)),
            "expression" => self.hdr_ref(&val, ctx),
            "stack" | "header_stack" => Ok(HdrRef::StackLast(self.stack(&val)?)),
            other => j.err(format!("expected a header, found \"{other}\"")),
        }
    }

    pub(super) fn union_ref(&self, j: &J, ctx: Ctx) -> LResult<UnionRef> {
        if j.v.get("op").is_some() && j.v.get("type").is_none() {
            let op = j.get("op")?.str()?;
            if op != "dereference_union_stack" {
                return j.err(format!("operation \"{op}\" does not produce a header union"));
            }
            let l = j.get("left")?;
            let n = l.get("value")?.str()?;
            let Some(&us) = self.ustack_by_name.get(n) else {
                return l.err(format!("unknown header union stack \"{n}\""));
            };
            return Ok(UnionRef::StackElem(us, Box::new(self.expr(&j.get("right")?, ctx)?)));
        }
        let ty = j.get("type")?.str()?;
        let val = j.get_or_null("value");
        match ty {
            "header_union" => {
                let n = val.str()?;
                match self.union_by_name.get(n) {
                    Some(&u) => Ok(UnionRef::Static(u)),
                    None => val.err(format!("unknown header union \"{n}\"")),
                }
            }
            "expression" => self.union_ref(&val, ctx),
            other => j.err(format!("expected a header union, found \"{other}\"")),
        }
    }

    pub(super) fn op_expr(&self, j: &J, ctx: Ctx) -> LResult<Expr> {
        let op = j.get("op")?.str()?;
        let l = j.get_or_null("left");
        let r = j.get_or_null("right");
        let bin = |o: BinOp| -> LResult<Expr> {
            Ok(Expr::Binary(o, Box::new(self.expr(&l, ctx)?), Box::new(self.expr(&r, ctx)?)))
        };
        let un = |o: UnOp| -> LResult<Expr> { Ok(Expr::Unary(o, Box::new(self.expr(&r, ctx)?))) };
        match op {
            "+" => bin(BinOp::Add),
            "-" if l.is_null() => un(UnOp::Neg),
            "-" => bin(BinOp::Sub),
            "*" => bin(BinOp::Mul),
            "/" => bin(BinOp::Div),
            "%" => bin(BinOp::Mod),
            "<<" => bin(BinOp::Shl),
            ">>" => bin(BinOp::Shr),
            "==" => bin(BinOp::Eq),
            "!=" => bin(BinOp::Ne),
            ">" => bin(BinOp::Gt),
            ">=" => bin(BinOp::Ge),
            "<" => bin(BinOp::Lt),
            "<=" => bin(BinOp::Le),
            "and" => bin(BinOp::And),
            "or" => bin(BinOp::Or),
            "&" => bin(BinOp::BAnd),
            "|" => bin(BinOp::BOr),
            "^" => bin(BinOp::BXor),
            "not" => un(UnOp::Not),
            "~" => un(UnOp::BNot),
            "d2b" => un(UnOp::D2B),
            "b2d" => un(UnOp::B2D),
            "valid" => Ok(Expr::Valid(self.hdr_ref(&r, ctx)?)),
            "valid_union" => Ok(Expr::UnionValid(self.union_ref(&r, ctx)?)),
            "?" => {
                let c = j.get("cond")?;
                Ok(Expr::Cond(
                    Box::new(self.expr(&c, ctx)?),
                    Box::new(self.expr(&l, ctx)?),
                    Box::new(self.expr(&r, ctx)?),
                ))
            }
            "two_comp_mod" | "usat_cast" | "sat_cast" => {
                let w = match self.expr(&r, ctx)? {
                    Expr::Const(w) if w > 0 && w <= MAX_WIDTH as i128 => w as u32,
                    _ => return r.err("the width must be a constant in 1..=65536"),
                };
                let a = Box::new(self.expr(&l, ctx)?);
                Ok(match op {
                    "two_comp_mod" => Expr::TwoCompMod(a, w),
                    "sat_cast" => Expr::SatCast { signed: true, e: a, width: w },
                    _ => Expr::SatCast { signed: false, e: a, width: w },
                })
            }
            "last_stack_index" => Ok(Expr::StackLastIndex(self.stack(&r.get("value")?)?)),
            "size_stack" => Ok(Expr::StackSize(self.stack(&r.get("value")?)?)),
            "access_field" => {
                let h = self.hdr_ref(&l, ctx)?;
                let k = r.u64()? as usize;
                let Some(ti) = self.hdr_type_of(&h) else { return l.err("bad header reference") };
                if k >= self.header_types[ti].fields.len() {
                    return r.err(format!("field offset {k} out of range"));
                }
                Ok(match h {
                    HdrRef::Static(hh) => Expr::Field(self.headers[hh].fields[k]),
                    h => Expr::DynField(Box::new(h), k),
                })
            }
            "dereference_header_stack" | "access_union_header" => {
                // A header as a value: its validity.
                Ok(Expr::Valid(self.hdr_ref(j, ctx)?))
            }
            other => j.get("op")?.err(format!("unknown expression operation \"{other}\"")),
        }
    }

    pub(super) fn lvalue(&self, j: &J, ctx: Ctx) -> LResult<LValue> {
        match self.expr(j, ctx)? {
            Expr::Field(f) => Ok(LValue::Field(f)),
            Expr::DynField(h, k) => Ok(LValue::DynField(*h, k)),
            _ => j.err("expected a field (an lvalue)"),
        }
    }
}
