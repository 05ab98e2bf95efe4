//! Field aliases, errors, registers, counters, meters, calculations, field and learn lists, value sets.

use super::*;

impl L {
    pub(super) fn load_externs(&mut self, root: &J) -> LResult<()> {
        for a in root.arr_opt("field_aliases")? {
            let p = a.arr()?;
            if p.len() != 2 {
                return a.err("expected [alias, [header, field]]");
            }
            let to = p[1].arr()?;
            if to.len() != 2 {
                return p[1].err("expected [header, field]");
            }
            self.aliases.insert(p[0].str()?.to_string(), (to[0].str()?.to_string(), to[1].str()?.to_string()));
        }
        for e in root.arr_opt("errors")? {
            let p = e.arr()?;
            if p.len() != 2 {
                return e.err("expected [name, value]");
            }
            self.errors.insert(p[0].str()?.to_string(), p[1].u64()?);
        }
        for e in root.arr_opt("enums")? {
            e.name()?;
            e.arr_opt("entries")?;
        }
        for r in root.arr_opt("register_arrays")? {
            let name = r.name()?.to_string();
            let size = r.get("size")?.u64()?;
            let width = r.get("bitwidth")?.u32()?;
            if size > MAX_ARRAY || width == 0 || width > MAX_WIDTH || size * bits::limbs(width) as u64 > MAX_REG_LIMBS {
                return r.err("register array size or bitwidth out of range");
            }
            self.reg_by_name.insert(name.clone(), self.registers.len());
            self.registers.push(RegisterArray { name, size: size as u32, width });
        }
        for c in root.arr_opt("counter_arrays")? {
            let name = c.name()?.to_string();
            let direct = c.bool_or("is_direct", false)?;
            let size = match c.opt("size") {
                Some(s) => s.u64()?,
                None if direct => 0,
                None => return c.err("missing attribute \"size\""),
            };
            if size > MAX_ARRAY {
                return c.get("size")?.err("counter array too large");
            }
            let binding = if direct { Some(c.get("binding")?.str()?.to_string()) } else { None };
            self.ctr_by_name.insert(name.clone(), self.counters.len());
            self.counters.push(CounterArray { name, size: size as u32, direct_table: None });
            self.ctr_binding.push(binding);
        }
        for m in root.arr_opt("meter_arrays")? {
            let name = m.name()?.to_string();
            let size = match m.opt("size") {
                Some(s) => s.u64()?,
                None if m.bool_or("is_direct", false)? => 0,
                None => return m.err("missing attribute \"size\""),
            };
            if size > MAX_ARRAY {
                return m.get("size")?.err("meter array too large");
            }
            let bytes = match m.get("type")?.str()? {
                "bytes" => true,
                "packets" => false,
                other => return m.get("type")?.err(format!("unknown meter type \"{other}\"")),
            };
            if let Some(rc) = m.opt("rate_count") {
                if rc.u64()? != 2 {
                    return rc.err("only 2-rate (RFC 2698) meters are supported");
                }
            }
            let direct = m.bool_or("is_direct", false)?;
            let binding = if direct { Some(m.get("binding")?.str()?.to_string()) } else { None };
            let result_target = match m.opt("result_target") {
                Some(t) if direct => Some(self.field_slot(&t)?),
                _ => None,
            };
            self.mtr_by_name.insert(name.clone(), self.meters.len());
            self.meters.push(MeterArray { name, size: size as u32, bytes, direct_table: None, result_target });
            self.mtr_binding.push(binding);
        }
        for c in root.arr_opt("calculations")? {
            let name = c.name()?.to_string();
            let algo_j = c.get("algo")?;
            let algo_n = algo_j.str()?;
            let Some(algo) = Algo::by_name(algo_n) else {
                return algo_j.err(format!("unknown hash algorithm \"{algo_n}\""));
            };
            let mut input = Vec::new();
            let mut input_headers = Vec::new();
            for i in c.get("input")?.arr()? {
                let ty = i.get("type")?.str()?;
                let val = i.get_or_null("value");
                match ty {
                    "field" => match self.field_ref(&val)? {
                        FRef::Slot(s) => {
                            input_headers.push(self.header_of_slot(s.slot));
                            input.push(CalcInput::Field(s));
                        }
                        FRef::Valid(h) => {
                            input_headers.push(None);
                            input.push(CalcInput::Const { value: vec![0], width: 1 });
                            let _ = h;
                            return val.err("$valid$ in a calculation is not supported");
                        }
                    },
                    "hexstr" => {
                        let b = hex_to_big(&val)?;
                        let width = i.get("bitwidth")?.u32()?;
                        if width == 0 || width > MAX_WIDTH {
                            return i.get("bitwidth")?.err("bitwidth out of range");
                        }
                        let mut l = vec![0u64; bits::limbs(width)];
                        bits::big_to_limbs(&b, width, &mut l);
                        input_headers.push(None);
                        input.push(CalcInput::Const { value: l, width });
                    }
                    "header" => {
                        let h = self.header(&val)?;
                        input_headers.push(Some(h));
                        input.push(CalcInput::Header(h));
                    }
                    "payload" => {
                        input_headers.push(None);
                        input.push(CalcInput::Payload);
                    }
                    other => return i.get("type")?.err(format!("unsupported calculation input \"{other}\"")),
                }
            }
            self.calc_by_name.insert(name, self.calcs.len());
            self.calcs.push(Calculation { algo, input, input_headers });
        }
        for f in root.arr_opt("field_lists")? {
            f.name()?;
            let id = f.get("id")?.u64()?;
            let mut fields = Vec::new();
            for e in f.get("elements")?.arr()? {
                match e.get("type")?.str()? {
                    "field" => fields.push(self.field_slot(&e.get("value")?)?),
                    other => return e.get("type")?.err(format!("unsupported field list element \"{other}\"")),
                }
            }
            self.fl_by_id.insert(id, self.field_lists.len());
            self.field_lists.push(FieldList { fields });
        }
        for (k, f) in root.arr_opt("learn_lists")?.into_iter().enumerate() {
            let name = f.name()?.to_string();
            let id = match f.opt("id") {
                Some(i) => i.u64()?,
                None => k as u64 + 1,
            };
            let mut fields = Vec::new();
            for e in f.get("elements")?.arr()? {
                match e.get("type")?.str()? {
                    "field" => fields.push(self.field_slot(&e.get("value")?)?),
                    other => return e.get("type")?.err(format!("unsupported learn list element \"{other}\"")),
                }
            }
            self.ll_by_id.insert(id, self.learn_lists.len());
            self.learn_lists.push(LearnList { name, id: id as u32, fields });
        }
        for v in root.arr_opt("parse_vsets")? {
            let name = v.name()?.to_string();
            let width = v.get("compressed_bitwidth")?.u32()?;
            if width == 0 || width > MAX_WIDTH {
                return v.get("compressed_bitwidth")?.err("bitwidth out of range");
            }
            let max_size = match v.opt("max_size") {
                Some(m) => m.u32()?,
                None => 1024,
            };
            self.vset_by_name.insert(name.clone(), self.vsets.len());
            self.vsets.push(ValueSet { name, width, max_size });
        }
        if let Some(e) = root.arr_opt("extern_instances")?.first() {
            let ty = e.get("type")?.str()?;
            return e.get("type")?.err(format!("extern type \"{ty}\" is not supported by this target"));
        }
        Ok(())
    }

    pub(super) fn header_of_slot(&self, slot: u32) -> Option<usize> {
        self.headers.iter().position(|h| h.fields.iter().any(|f| f.slot == slot))
    }

    pub(super) fn field_list_param(&self, j: &J) -> LResult<Option<usize>> {
        let id = int_value(&j.get("value")?)?;
        if id < 0 {
            return j.err("bad field list id");
        }
        match self.fl_by_id.get(&(id as u64)) {
            Some(&f) => Ok(Some(f)),
            // p4c uses 0 when nothing is preserved
            None if id == 0 => Ok(None),
            None => j.err(format!("unknown field list id {id}")),
        }
    }
}
