//! Header types, instances, stacks and unions; field references.

use super::*;

impl L {
    pub(super) fn load_headers(&mut self, root: &J) -> LResult<()> {
        for (i, t) in root.arr_opt("header_types")?.into_iter().enumerate() {
            let name = t.name()?.to_string();
            let mut fields = Vec::new();
            let mut nvar = 0;
            for f in t.get("fields")?.arr()? {
                let parts = f.arr()?;
                if parts.len() < 2 || parts.len() > 3 {
                    return f.err("a field must be [name, width] or [name, width, signed]");
                }
                let fname = parts[0].str()?.to_string();
                let (w, var) = if parts[1].v.as_str() == Some("*") {
                    nvar += 1;
                    (0, true)
                } else {
                    let w = parts[1].u32()?;
                    if w == 0 || w > MAX_WIDTH {
                        return parts[1].err(format!("field width {w} out of range 1..={MAX_WIDTH}"));
                    }
                    (w, false)
                };
                let signed = if parts.len() == 3 { parts[2].flag()? } else { false };
                fields.push((fname, w, signed, var));
            }
            if nvar > 1 {
                return t.err("more than one variable-length field");
            }
            if nvar == 1 {
                let fixed: u32 = fields.iter().map(|f| f.1).sum();
                let max_len = match t.opt("max_length") {
                    Some(m) => m.u32()?,
                    None => return t.err("header type with a variable-length field needs \"max_length\""),
                };
                let maxbits = max_len.saturating_mul(8);
                if maxbits < fixed || maxbits - fixed > MAX_WIDTH {
                    return t.get("max_length")?.err("max_length too small or too large for the fields");
                }
                for f in fields.iter_mut() {
                    if f.3 {
                        f.1 = (maxbits - fixed).max(1);
                    }
                }
            }
            if let Some(le) = t.opt("length_exp") {
                return le.err("length_exp (P4_14 variable-length headers) is not supported; use extract_VL");
            }
            self.ht_by_name.insert(name.clone(), i);
            self.header_types.push(HeaderType { name, fields });
        }
        for h in root.arr_opt("headers")? {
            let name = h.name()?.to_string();
            let tname = h.get("header_type")?.str()?;
            let Some(&ti) = self.ht_by_name.get(tname) else {
                return h.get("header_type")?.err(format!("unknown header type \"{tname}\""));
            };
            let metadata = h.bool_or("metadata", false)?;
            let ty = &self.header_types[ti];
            let mut fields = Vec::new();
            let mut fixed = 0;
            let mut var = None;
            for (k, f) in ty.fields.iter().enumerate() {
                let fs = FieldSlot { slot: self.nslots as u32, width: f.1, signed: f.2, varbit: f.3 };
                self.nslots += fs.nlimbs();
                if f.3 {
                    var = Some(k);
                } else {
                    fixed += f.1;
                }
                fields.push(fs);
            }
            if self.nslots > MAX_SLOTS {
                return h.err("program too large (header vector exceeds the limit)");
            }
            let idx = self.headers.len();
            if self.hdr_by_name.insert(name.clone(), idx).is_some() {
                return h.get("name")?.err(format!("duplicate header \"{name}\""));
            }
            if let Some(id) = h.opt("id") {
                self.hdr_by_id.insert(id.u64()?, idx);
            }
            self.headers.push(Header {
                name,
                type_idx: ti,
                metadata,
                fields,
                fixed_bits: fixed,
                varbit_field: var,
                union: None,
            });
        }
        for s in root.arr_opt("header_stacks")? {
            let name = s.name()?.to_string();
            let mut hs = Vec::new();
            for id in s.get("header_ids")?.arr()? {
                match self.hdr_by_id.get(&id.u64()?) {
                    Some(&h) => hs.push(h),
                    None => return id.err("unknown header id"),
                }
            }
            self.stack_by_name.insert(name, self.stacks.len());
            self.stacks.push(Stack { headers: hs });
        }
        for t in root.arr_opt("header_union_types")? {
            let name = t.name()?.to_string();
            let mut members = Vec::new();
            for m in t.get("headers")?.arr()? {
                let p = m.arr()?;
                match p.first() {
                    Some(n) => members.push(n.str()?.to_string()),
                    None => return m.err("expected [member name, header type]"),
                }
            }
            self.union_types.insert(name, members);
        }
        for u in root.arr_opt("header_unions")? {
            let name = u.name()?.to_string();
            let mut hs = Vec::new();
            let ui = self.unions.len();
            for id in u.get("header_ids")?.arr()? {
                match self.hdr_by_id.get(&id.u64()?) {
                    Some(&h) => {
                        hs.push(h);
                        self.headers[h].union = Some(ui);
                    }
                    None => return id.err("unknown header id"),
                }
            }
            self.union_by_name.insert(name, ui);
            if let Some(id) = u.opt("id") {
                self.union_by_id.insert(id.u64()?, ui);
            }
            self.unions.push(Union { headers: hs });
        }
        for s in root.arr_opt("header_union_stacks")? {
            let name = s.name()?.to_string();
            let mut us = Vec::new();
            for id in s.get("header_union_ids")?.arr()? {
                match self.union_by_id.get(&id.u64()?) {
                    Some(&u) => us.push(u),
                    None => return id.err("unknown header union id"),
                }
            }
            self.ustack_by_name.insert(name, self.union_stacks.len());
            self.union_stacks.push(UnionStack { unions: us });
        }
        Ok(())
    }

    pub(super) fn header(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.hdr_by_name.get(n) {
            Some(&h) => Ok(h),
            None => j.err(format!("unknown header \"{n}\"")),
        }
    }

    pub(super) fn stack(&self, j: &J) -> LResult<usize> {
        let n = j.str()?;
        match self.stack_by_name.get(n) {
            Some(&s) => Ok(s),
            None => j.err(format!("unknown header stack \"{n}\"")),
        }
    }

    pub(super) fn field_in_type(&self, ti: usize, fname: &str) -> Option<usize> {
        self.header_types[ti].fields.iter().position(|f| f.0 == fname)
    }

    pub(super) fn field_ref(&self, j: &J) -> LResult<FRef> {
        let parts = j.arr()?;
        if parts.len() != 2 {
            return j.err("a field reference must be [header, field]");
        }
        let mut hname = parts[0].str()?.to_string();
        let mut fname = parts[1].str()?.to_string();
        if let Some((h, f)) = self.aliases.get(&format!("{hname}.{fname}")) {
            hname = h.clone();
            fname = f.clone();
        }
        let Some(&h) = self.hdr_by_name.get(&hname) else {
            return parts[0].err(format!("unknown header \"{hname}\""));
        };
        if fname == "$valid$" {
            return Ok(FRef::Valid(h));
        }
        match self.field_in_type(self.headers[h].type_idx, &fname) {
            Some(k) => Ok(FRef::Slot(self.headers[h].fields[k])),
            None => parts[1].err(format!("header \"{hname}\" has no field \"{fname}\"")),
        }
    }

    pub(super) fn field_slot(&self, j: &J) -> LResult<FieldSlot> {
        match self.field_ref(j)? {
            FRef::Slot(s) => Ok(s),
            FRef::Valid(_) => j.err("$valid$ cannot be used here"),
        }
    }

    pub(super) fn hdr_field_width(&self, h: &HdrRef, i: usize) -> u32 {
        let ti = match self.hdr_type_of(h) {
            Some(t) => t,
            None => return 1 << 20,
        };
        self.header_types[ti].fields.get(i).map_or(1 << 20, |f| f.1 + f.2 as u32)
    }

    pub(super) fn hdr_type_of(&self, h: &HdrRef) -> Option<usize> {
        match h {
            HdrRef::Static(h) => Some(self.headers.get(*h)?.type_idx),
            HdrRef::StackElem(s, _) | HdrRef::StackLast(s) => {
                let h0 = *self.stacks.get(*s)?.headers.first()?;
                Some(self.headers[h0].type_idx)
            }
            HdrRef::UnionMember(u, m) => {
                let u0 = match &**u {
                    UnionRef::Static(u) => *u,
                    UnionRef::StackElem(s, _) | UnionRef::StackLast(s) => *self.union_stacks.get(*s)?.unions.first()?,
                };
                let h = *self.unions.get(u0)?.headers.get(*m)?;
                Some(self.headers[h].type_idx)
            }
            HdrRef::Cond(_, a, _) => self.hdr_type_of(a),
        }
    }
}
