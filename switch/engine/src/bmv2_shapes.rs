//! What BMv2's JSON loader (behavioral-model `src/bm_sim/P4Objects.cpp`,
//! simple_switch's primitives) refuses or cannot run, checked on the raw JSON
//! before the engine loads it, so that p4switch and BMv2 accept the same
//! programs. The engine itself runs laxer shapes; this pass is the contract.
//!
//! Shapes (from BMv2's `build_expression` and `process_single_param`):
//! - an expression is a `{"type", "value"}` object; type `expression` holds an
//!   `{"op", "left", "right"}` object whose operands are expressions again;
//!   action parameters inside one are `{"type": "local"}`;
//! - a primitive parameter of type `expression` holds an expression, so the
//!   operation sits two `expression` levels down; parser `set`/`advance`/
//!   `extract_VL` sources likewise; `verify` and conditionals hold one level;
//! - every primitive takes exactly its number of parameters.

use crate::json::{LResult, J};

/// Parameter counts of the primitives simple_switch registers.
const PRIMITIVE_ARITY: &[(&str, usize)] = &[
    ("assign", 2),
    ("assign_VL", 2),
    ("assign_header", 2),
    ("assign_union", 2),
    ("assign_header_stack", 2),
    ("assign_union_stack", 2),
    ("push", 2),
    ("pop", 2),
    ("assume", 1),
    ("assert", 1),
    ("exit", 0),
    ("log_msg", 2),
    ("modify_field", 2),
    ("modify_field_rng_uniform", 3),
    ("add_to_field", 2),
    ("subtract_from_field", 2),
    ("drop", 0),
    ("mark_to_drop", 1),
    ("generate_digest", 2),
    ("add_header", 1),
    ("remove_header", 1),
    ("copy_header", 2),
    ("clone_ingress_pkt_to_egress", 2),
    ("clone_egress_pkt_to_egress", 2),
    ("resubmit", 1),
    ("recirculate", 1),
    ("modify_field_with_hash_based_offset", 4),
    ("no_op", 0),
    ("execute_meter", 3),
    ("count", 2),
    ("register_read", 3),
    ("register_write", 3),
    ("truncate", 1),
    ("_jump", 1),
    ("_jump_if_zero", 2),
];

/// Value types BMv2 reads inside an expression.
const EXPR_TYPES: &[&str] = &[
    "expression",
    "header",
    "field",
    "bool",
    "hexstr",
    "local",
    "register",
    "header_stack",
    "stack_field",
    "header_union",
    "header_union_stack",
];

/// Value types BMv2 reads as a primitive parameter.
const PARAM_TYPES: &[&str] = &[
    "hexstr",
    "parameters_vector",
    "field_list",
    "runtime_data",
    "header",
    "field",
    "calculation",
    "meter_array",
    "counter_array",
    "register_array",
    "header_stack",
    "expression",
    "register",
    "extern",
    "string",
    "stack_field",
    "header_union",
    "header_union_stack",
];

/// Operations whose result BMv2 types as a boolean.
const BOOL_OPS: &[&str] = &["==", "!=", ">", ">=", "<", "<=", "and", "or", "not", "d2b", "valid", "valid_union"];

/// Checks the whole program; the error names the JSON path and the reason.
pub fn check(root: &J) -> LResult<()> {
    let field_lists: Vec<u64> =
        root.arr_opt("field_lists")?.iter().filter_map(|f| f.v.get("id").and_then(|i| i.as_u64())).collect();
    let c = Checker { field_lists };
    for a in root.arr_opt("actions")? {
        for p in a.arr_opt("primitives")? {
            c.primitive(&p)?;
        }
    }
    for parser in root.arr_opt("parsers")? {
        for s in parser.arr_opt("parse_states")? {
            for o in s.arr_opt("parser_ops")? {
                c.parser_op(&o)?;
            }
        }
    }
    for d in root.arr_opt("deparsers")? {
        for p in d.arr_opt("primitives")? {
            c.primitive(&p)?;
        }
    }
    for calc in root.arr_opt("calculations")? {
        for i in calc.arr_opt("input")? {
            calc_constant(&i)?;
        }
    }
    for pipe in root.arr_opt("pipelines")? {
        for cond in pipe.arr_opt("conditionals")? {
            c.expr(&cond.get("expression")?)?;
        }
        for t in pipe.arr_opt("tables")? {
            let simple = t.v.get("type").and_then(|x| x.as_str()).is_none_or(|x| x == "simple");
            if let (false, Some(e)) = (simple, t.opt("entries")) {
                return e.err("BMv2 refuses \"entries\" in a table whose type is not 'simple'");
            }
            next_tables(&t)?;
            if let Some(d) = t.opt("default_entry") {
                if d.opt("action_data").is_none() {
                    return d.err("BMv2 wants \"action_data\" in a \"default_entry\"");
                }
            }
        }
    }
    Ok(())
}

struct Checker {
    field_lists: Vec<u64>,
}

impl Checker {
    /// An expression as BMv2's `build_expression` reads it.
    fn expr(&self, e: &J) -> LResult<()> {
        if e.is_null() {
            return Ok(());
        }
        let ty = e.v.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if ty == "runtime_data" {
            return e.err("an action parameter inside an expression must be {\"type\": \"local\"} (BMv2 refuses \"runtime_data\" there)");
        }
        if !EXPR_TYPES.contains(&ty) {
            let what = if e.v.get("op").is_some() { ", an operation wrapped too few times in {\"type\": \"expression\"}" } else { "" };
            return e.err(format!("BMv2 refuses this expression: invalid 'type' in expression: '{ty}'{what}"));
        }
        let v = e.get_or_null("value");
        match ty {
            "expression" => self.operation(&v),
            "register" => match v.v.as_array().and_then(|a| a.get(1)) {
                Some(_) => self.expr(&v.arr()?[1]),
                None => v.err("expected [register array, index]"),
            },
            _ => Ok(()),
        }
    }

    /// The `{"op", "left", "right"}` object inside an `expression`.
    fn operation(&self, o: &J) -> LResult<()> {
        let Some(op) = o.v.get("op").and_then(|x| x.as_str()) else {
            return o.err("expected an {\"op\", \"left\", \"right\"} object (BMv2 reads the operation here)");
        };
        self.expr(&o.get_or_null("left"))?;
        if op == "?" {
            self.expr(&o.get("cond")?)?;
        }
        match op {
            // the member index is a plain integer
            "access_field" | "access_union_header" => Ok(()),
            _ => self.expr(&o.get_or_null("right")),
        }
    }

    fn param(&self, p: &J, op: &str) -> LResult<()> {
        let ty = p.get("type")?.str()?;
        if !PARAM_TYPES.contains(&ty) {
            return p.get("type")?.err(format!("BMv2 refuses parameter type '{ty}' in a primitive"));
        }
        let v = p.get_or_null("value");
        match ty {
            "expression" => self.expr(&v),
            "parameters_vector" => {
                if v.v.as_object().is_some_and(|o| o.is_empty()) {
                    return Ok(());
                }
                for x in v.arr()? {
                    self.param(&x, op)?;
                }
                Ok(())
            }
            "register" => match v.v.as_array().and_then(|a| a.get(1)) {
                Some(_) => self.expr(&v.arr()?[1]),
                None => v.err("expected [register array, index]"),
            },
            _ => Ok(()),
        }
    }

    fn primitive(&self, p: &J) -> LResult<()> {
        let op = p.get("op")?.str()?;
        let params = p.arr_opt("parameters")?;
        if let Some(&(_, n)) = PRIMITIVE_ARITY.iter().find(|(name, _)| *name == op) {
            if params.len() != n {
                return p.err(format!("BMv2 refuses primitive \"{op}\" with {} parameters: it takes {n}", params.len()));
            }
        }
        for x in &params {
            self.param(x, op)?;
        }
        match op {
            "assert" | "assume" => {
                if let Some(c) = params.first() {
                    if is_bool(c) {
                        return c.err(format!("the condition of \"{op}\" must be a number (wrap it in \"b2d\"): BMv2 reads it as data"));
                    }
                }
            }
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => self.field_list(&params[1], "BMv2 aborts when it clones")?,
            "resubmit" | "recirculate" => self.field_list(&params[0], "BMv2 then does not resubmit or recirculate")?,
            _ => {}
        }
        Ok(())
    }

    /// A field-list id parameter must name an entry of `field_lists`.
    fn field_list(&self, p: &J, consequence: &str) -> LResult<()> {
        let id = p.v.get("value").and_then(|v| v.as_str()).and_then(crate::bits::parse_hexstr);
        let Some(id) = id.and_then(|b| u64::try_from(b).ok()) else { return Ok(()) };
        if self.field_lists.contains(&id) {
            return Ok(());
        }
        p.err(format!("field list id {id} has no entry in \"field_lists\" ({consequence}; p4c writes an empty list)"))
    }

    fn parser_op(&self, o: &J) -> LResult<()> {
        let op = o.get("op")?.str()?;
        let params = o.arr_opt("parameters")?;
        let nth = |i: usize| -> LResult<&J> {
            match params.get(i) {
                Some(p) => Ok(p),
                None => o.err(format!("parser op \"{op}\" needs {} parameters", i + 1)),
            }
        };
        // A source of type `expression` holds an expression (two levels to the op).
        let wrapped = |p: &J| -> LResult<()> {
            match p.get("type")?.str()? {
                "expression" => self.expr(&p.get("value")?),
                _ => Ok(()),
            }
        };
        match op {
            "set" => {
                let dst = nth(0)?.get("type")?;
                if dst.str()? != "field" {
                    return dst.err(format!("BMv2 refuses a parser 'set' into type '{}': expected 'field'", dst.str()?));
                }
                let src = nth(1)?;
                let st = src.get("type")?;
                if !["field", "hexstr", "lookahead", "expression"].contains(&st.str()?) {
                    return st.err(format!("BMv2 refuses a parser 'set' from type '{}'", st.str()?));
                }
                wrapped(src)
            }
            "extract_VL" => {
                let len = nth(1)?;
                if len.get("type")?.str()? != "expression" {
                    return len.get("type")?.err("BMv2 wants the extract_VL length as type 'expression'");
                }
                wrapped(len)
            }
            "advance" => wrapped(nth(0)?),
            "verify" => {
                self.expr(nth(0)?)?;
                let e = nth(1)?;
                if e.v.is_i64() {
                    Ok(())
                } else {
                    self.expr(e)
                }
            }
            "primitive" => self.primitive(nth(0)?),
            _ => Ok(()),
        }
    }
}

/// BMv2's `next_tables`: exactly `__HIT__` and `__MISS__`, or one key per
/// action of the table.
/// A constant in a calculation's input: BMv2 copies `bitwidth` bits from the start of the
/// hex string's bytes, so the string must have exactly the bitwidth's bytes ("0x0001" for
/// 16 bits): with fewer BMv2 reads past them, with more it takes the wrong ones.
fn calc_constant(i: &J) -> LResult<()> {
    if i.v.get("type").and_then(|t| t.as_str()) != Some("hexstr") {
        return Ok(());
    }
    let (Some(hex), Some(width)) = (i.v.get("value").and_then(|v| v.as_str()), i.v.get("bitwidth").and_then(|w| w.as_u64()))
    else {
        return Ok(()); // the loader names what is missing
    };
    let digits = hex.trim_start_matches("0x").len();
    let (have, want) = (digits.div_ceil(2) as u64, width.div_ceil(8));
    if have != want {
        return i.get("value")?.err(format!(
            "BMv2 reads the {want} byte(s) of a {width}-bit constant from this hex string of {have} byte(s): write all {} digits",
            want * 2
        ));
    }
    Ok(())
}

fn next_tables(t: &J) -> LResult<()> {
    let nt = t.get("next_tables")?;
    let Some(keys) = nt.v.as_object() else { return nt.err("expected an object") };
    if keys.contains_key("__HIT__") || keys.contains_key("__MISS__") {
        if keys.len() != 2 || !keys.contains_key("__HIT__") || !keys.contains_key("__MISS__") {
            return nt.err("BMv2 wants both \"__HIT__\" and \"__MISS__\" and no other key");
        }
        return Ok(());
    }
    for a in t.arr_opt("actions")? {
        let name = a.str()?;
        if !keys.contains_key(name) {
            return nt.err(format!("BMv2 wants a next node for action \"{name}\" here"));
        }
    }
    let n = t.arr_opt("actions")?.len();
    if keys.len() != n {
        return nt.err(format!("BMv2 wants one key per action ({n}), found {}", keys.len()));
    }
    Ok(())
}

/// Whether BMv2 types this primitive parameter as a boolean.
fn is_bool(p: &J) -> bool {
    let mut v = p.v;
    loop {
        match v.get("type").and_then(|t| t.as_str()) {
            Some("bool") => return true,
            Some("expression") => match v.get("value") {
                Some(inner) => v = inner,
                None => return false,
            },
            Some(_) => return false,
            None => {
                let op = v.get("op").and_then(|o| o.as_str()).unwrap_or("");
                if op == "?" {
                    return v.get("left").is_some_and(|l| is_bool(&J { v: l, path: String::new() }));
                }
                return BOOL_OPS.contains(&op);
            }
        }
    }
}
