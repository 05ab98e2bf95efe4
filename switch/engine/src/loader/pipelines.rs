//! Pipelines: action profiles, tables (keys, actions, entries), conditionals, action calls.

use super::*;

impl L {
    #[allow(clippy::type_complexity)]
    pub(super) fn load_pipelines(
        &mut self,
        root: &J,
    ) -> LResult<(Vec<Table>, Vec<Conditional>, Vec<ActionCall>, Vec<ActionProfile>, Vec<Pipeline>)> {
        let mut tables = Vec::new();
        let mut conds = Vec::new();
        let mut calls = Vec::new();
        let mut profiles = Vec::new();
        let mut pipes = Vec::new();
        let pj_all = root.arr_opt("pipelines")?;
        // First pass: node names.
        let mut nodes: HashMap<String, Node> = HashMap::new();
        {
            let (mut nt, mut nc, mut na) = (0, 0, 0);
            for p in &pj_all {
                for t in p.arr_opt("tables")? {
                    nodes.insert(t.name()?.to_string(), Node::Table(nt));
                    nt += 1;
                }
                for c in p.arr_opt("conditionals")? {
                    nodes.insert(c.name()?.to_string(), Node::Cond(nc));
                    nc += 1;
                }
                for a in p.arr_opt("action_calls")? {
                    nodes.insert(a.name()?.to_string(), Node::ActionCall(na));
                    na += 1;
                }
            }
        }
        let node = |j: &J| -> LResult<Option<Node>> {
            if j.is_null() {
                return Ok(None);
            }
            let n = j.str()?;
            match nodes.get(n) {
                Some(&x) => Ok(Some(x)),
                None => j.err(format!("unknown table, conditional or action call \"{n}\"")),
            }
        };
        let mut prof_by_name: HashMap<String, usize> = HashMap::new();
        for p in &pj_all {
            for ap in p.arr_opt("action_profiles")? {
                let name = ap.name()?.to_string();
                let id = ap.get("id")?.u32()?;
                let size = match ap.opt("max_size") {
                    Some(m) => m.u32()?,
                    None => 0,
                };
                let selector = match ap.opt("selector") {
                    Some(s) => {
                        let aj = s.get("algo")?;
                        let an = aj.str()?;
                        let Some(algo) = Algo::by_name(an) else {
                            return aj.err(format!("unknown hash algorithm \"{an}\""));
                        };
                        let mut input = Vec::new();
                        for i in s.get("input")?.arr()? {
                            match i.get("type")?.str()? {
                                "field" => input.push(self.field_slot(&i.get("value")?)?),
                                other => return i.get("type")?.err(format!("unsupported selector input \"{other}\"")),
                            }
                        }
                        Some(Selector { algo, input })
                    }
                    None => None,
                };
                prof_by_name.insert(name.clone(), profiles.len());
                profiles.push(ActionProfile { name, id, size, selector });
            }
        }
        for p in &pj_all {
            let pname = p.name()?.to_string();
            let init = node(&p.get_or_null("init_table"))?;
            pipes.push(Pipeline { name: pname, init });
            for t in p.arr_opt("tables")? {
                tables.push(self.load_table(&t, &node, &prof_by_name)?);
            }
            for c in p.arr_opt("conditionals")? {
                conds.push(Conditional {
                    name: c.name()?.to_string(),
                    expr: self.cexpr(&c.get("expression")?, NO_CTX)?,
                    true_next: node(&c.get_or_null("true_next"))?,
                    false_next: node(&c.get_or_null("false_next"))?,
                });
            }
            for a in p.arr_opt("action_calls")? {
                let aid = a.get("action_id")?;
                let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                    return aid.err("unknown action id");
                };
                a.name()?;
                calls.push(ActionCall {
                    action: act,
                    next: node(&a.get_or_null("next_node"))?,
                });
            }
        }
        Ok((tables, conds, calls, profiles, pipes))
    }

    pub(super) fn action_data(&self, act: usize, data: Option<J>) -> LResult<Vec<u64>> {
        let a = &self.actions[act];
        let mut out = vec![0u64; a.data_limbs as usize];
        let items = match &data {
            Some(d) => d.arr()?,
            None => Vec::new(),
        };
        if items.len() != a.params.len() {
            if let Some(d) = &data {
                return d.err(format!("action \"{}\" takes {} parameters, {} given", a.name, a.params.len(), items.len()));
            }
            if !a.params.is_empty() {
                return Ok(out);
            }
        }
        for (p, it) in a.params.iter().zip(items.iter()) {
            let b = hex_to_big(it)?;
            let n = bits::limbs(p.1);
            let o = p.2 as usize;
            bits::big_to_limbs(&b, p.1, &mut out[o..o + n]);
        }
        Ok(out)
    }

    pub(super) fn load_table(
        &self,
        t: &J,
        node: &dyn Fn(&J) -> LResult<Option<Node>>,
        prof_by_name: &HashMap<String, usize>,
    ) -> LResult<Table> {
        let name = t.name()?.to_string();
        let id = t.get("id")?.u32()?;
        let kind = match t.opt("type").map(|x| x.str()).transpose()?.unwrap_or("simple") {
            "simple" => TableKind::Simple,
            "indirect" => TableKind::Indirect,
            "indirect_ws" => TableKind::IndirectWs,
            other => return t.get("type")?.err(format!("unknown table type \"{other}\"")),
        };
        let profile = if kind != TableKind::Simple {
            let pj = t.get("action_profile")?;
            let pn = pj.str()?;
            match prof_by_name.get(pn) {
                Some(&p) => Some(p),
                None => return pj.err(format!("unknown action profile \"{pn}\"")),
            }
        } else {
            None
        };
        let mut keys = Vec::new();
        let mut off = 0u32;
        let mut nlpm = 0;
        let mut needs_priority = false;
        for k in t.arr_opt("key")? {
            let mtj = k.get("match_type")?;
            let mk = match mtj.str()? {
                "exact" => MatchKind::Exact,
                "lpm" => MatchKind::Lpm,
                "ternary" => MatchKind::Ternary,
                "range" => MatchKind::Range,
                "optional" => MatchKind::Optional,
                "valid" => MatchKind::Valid,
                "selector" => MatchKind::Selector,
                other => return mtj.err(format!("unknown match_type \"{other}\"")),
            };
            if mk == MatchKind::Selector {
                continue;
            }
            let target = k.get("target")?;
            let (src, width, fname) = if mk == MatchKind::Valid {
                let h = if target.v.is_string() { self.header(&target)? } else {
                    match self.field_ref(&target)? {
                        FRef::Valid(h) => h,
                        FRef::Slot(_) => return target.err("valid match on a field"),
                    }
                };
                (KeySource::Valid(HdrRef::Static(h)), 1, format!("{}.$valid$", self.headers[h].name))
            } else {
                let parts = target.arr()?;
                let dotted = parts.iter().filter_map(|p| p.v.as_str()).collect::<Vec<_>>().join(".");
                match self.field_ref(&target)? {
                    FRef::Slot(s) => {
                        if s.varbit {
                            return target.err("matching on a variable-length field is not supported");
                        }
                        (KeySource::Field(s), s.width, dotted)
                    }
                    FRef::Valid(h) => (KeySource::Valid(HdrRef::Static(h)), 1, dotted),
                }
            };
            let mask = match k.opt("mask") {
                Some(m) => {
                    let b = hex_to_big(&m)?;
                    let mut l = vec![0u64; bits::limbs(width)];
                    bits::big_to_limbs(&b, width, &mut l);
                    Some(l)
                }
                None => None,
            };
            let kname = match k.opt("name") {
                Some(n) => n.str()?.to_string(),
                None => fname,
            };
            match mk {
                MatchKind::Lpm => nlpm += 1,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional => needs_priority = true,
                _ => {}
            }
            let nl = bits::limbs(width) as u32;
            keys.push(TableKey { name: kname, kind: if mk == MatchKind::Valid { MatchKind::Exact } else { mk }, src, width, mask, off, nlimbs: nl });
            off += nl;
        }
        if nlpm > 1 {
            return t.get("key")?.err("more than one lpm key field");
        }
        let imp = if needs_priority {
            TableImpl::Ternary
        } else if nlpm == 1 {
            TableImpl::Lpm
        } else {
            TableImpl::Exact
        };
        let mut actions = Vec::new();
        let mut action_names = HashMap::new();
        for (i, a) in t.get("actions")?.arr()?.iter().enumerate() {
            let an = a.str()?;
            let _ = i;
            // Prefer the action id list if present (names may repeat across controls).
            let idx = match t.opt("action_ids").and_then(|ids| ids.v.get(i).and_then(|x| x.as_u64())) {
                Some(aid) => self.act_by_id.get(&aid).copied(),
                None => self.act_by_name.get(an).copied(),
            };
            match idx {
                Some(x) => {
                    actions.push(x);
                    action_names.insert(an.to_string(), x);
                }
                None => return a.err(format!("unknown action \"{an}\"")),
            }
        }
        let mut next_by_action = Vec::new();
        let mut next_hit = None;
        let mut next_miss = None;
        if let Some(nt) = t.opt("next_tables") {
            let Some(obj) = nt.v.as_object() else { return nt.err("expected an object") };
            for (k, v) in obj {
                let vj = J { v, path: format!("{}.{}", nt.path, k) };
                let nx = node(&vj)?;
                match k.as_str() {
                    "__HIT__" => next_hit = Some(nx),
                    "__MISS__" => next_miss = Some(nx),
                    an => match action_names.get(an) {
                        Some(&a) => next_by_action.push((a, nx)),
                        None => match self.act_by_name.get(an) {
                            Some(&a) => next_by_action.push((a, nx)),
                            None => return vj.err(format!("next_tables names unknown action \"{an}\"")),
                        },
                    },
                }
            }
        }
        let base_default_next = node(&t.get_or_null("base_default_next"))?;
        let default_entry = match t.opt("default_entry") {
            Some(d) => {
                let aid = d.get("action_id")?;
                let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                    return aid.err("unknown action id");
                };
                let data = self.action_data(act, d.opt("action_data"))?;
                Some(DefaultEntry { action: act, data, is_const: d.bool_or("action_const", false)? })
            }
            None => None,
        };
        let mut const_entries = Vec::new();
        let has_const = t.opt("entries").is_some();
        for (ei, e) in t.arr_opt("entries")?.into_iter().enumerate() {
            let mk = e.get("match_key")?.arr()?;
            if mk.len() != keys.len() {
                return e.get("match_key")?.err(format!("{} key fields given, table has {}", mk.len(), keys.len()));
            }
            let mut key = Vec::new();
            for (m, k) in mk.iter().zip(keys.iter()) {
                let limbs = |name: &str| -> LResult<Vec<u64>> {
                    let b = hex_to_big(&m.get(name)?)?;
                    let mut l = vec![0u64; bits::limbs(k.width)];
                    bits::big_to_limbs(&b, k.width, &mut l);
                    Ok(l)
                };
                let bytes = |l: &[u64]| bits::limbs_to_bytes(l, k.width);
                // BMv2 masks the value with the mask (ternary) or the prefix
                // (lpm): p4c writes keys such as 0x1111 &&& 0x000f unmasked.
                let masked = |mut v: Vec<u64>, mask: &[u64]| -> Vec<u8> {
                    v.iter_mut().zip(mask).for_each(|(a, b)| *a &= b);
                    bytes(&v)
                };
                let mt = m.get("match_type")?.str()?;
                let fits = match k.kind {
                    MatchKind::Exact => mt == "exact" || mt == "valid",
                    MatchKind::Lpm => mt == "lpm",
                    MatchKind::Ternary | MatchKind::Optional => mt == "ternary" || mt == "optional",
                    MatchKind::Range => mt == "range",
                    MatchKind::Valid | MatchKind::Selector => false,
                };
                if !fits {
                    return m.get("match_type")?.err(format!("\"{mt}\" entry for the {:?} key field \"{}\"", k.kind, k.name));
                }
                key.push(match mt {
                    "exact" => MatchKey::Exact(bytes(&limbs("key")?)),
                    "valid" => MatchKey::Exact(vec![m.get("key")?.bool()? as u8]),
                    "lpm" => {
                        let pj = m.get("prefix_length")?;
                        let plen = pj.u32()?;
                        if plen > k.width {
                            return pj.err(format!("prefix length {plen} is wider than the {}-bit key", k.width));
                        }
                        let mut v = limbs("key")?;
                        bits::apply_prefix(&mut v, k.width, plen);
                        MatchKey::Lpm(bytes(&v), plen)
                    }
                    "ternary" | "optional" => {
                        let mask = limbs("mask")?;
                        MatchKey::Ternary(masked(limbs("key")?, &mask), bytes(&mask))
                    }
                    "range" => MatchKey::Range(bytes(&limbs("start")?), bytes(&limbs("end")?)),
                    other => return m.get("match_type")?.err(format!("unknown match_type \"{other}\"")),
                });
            }
            let ae = e.get("action_entry")?;
            let aid = ae.get("action_id")?;
            let Some(&act) = self.act_by_id.get(&aid.u64()?) else {
                return aid.err("unknown action id");
            };
            let data = self.action_data(act, ae.opt("action_data"))?;
            let jp = match e.opt("priority") {
                Some(p) => p.i64()?,
                None => ei as i64 + 1,
            };
            let priority = CONST_PRIORITY_BASE.saturating_sub(jp.clamp(0, i32::MAX as i64) as i32);
            let same_priority = |c: &ConstEntry| !needs_priority || c.priority == priority;
            if const_entries.iter().any(|c: &ConstEntry| c.key == key && same_priority(c)) {
                return e.err("duplicate entry in the table's \"entries\" (BMv2 refuses it)");
            }
            const_entries.push(ConstEntry { key, action: act, data, priority });
        }
        let max_size = match t.opt("max_size") {
            Some(m) => m.u32()?,
            None => 1024,
        };
        let with_counters = t.bool_or("with_counters", false)?;
        let direct_counter = if with_counters {
            self.ctr_binding.iter().position(|b| b.as_deref() == Some(name.as_str()))
        } else {
            None
        };
        let direct_meter = match t.opt("direct_meters") {
            Some(m) => {
                let n = m.str()?;
                match self.mtr_by_name.get(n) {
                    Some(&x) => Some(x),
                    None => return m.err(format!("unknown meter array \"{n}\"")),
                }
            }
            None => None,
        };
        let fixed_default = keys.is_empty()
            && default_entry.as_ref().is_some_and(|d| d.is_const)
            && profile.is_none()
            && direct_counter.is_none()
            && direct_meter.is_none()
            && !t.bool_or("support_timeout", false)?;
        Ok(Table {
            fixed_default,
            name,
            id,
            key_limbs: off,
            keys,
            imp,
            needs_priority,
            kind,
            profile,
            actions,
            next_by_action,
            next_hit,
            next_miss,
            base_default_next,
            default_entry,
            const_entries,
            has_const_entries: has_const,
            max_size,
            direct_counter,
            direct_meter,
            support_timeout: t.bool_or("support_timeout", false)?,
        })
    }
}
