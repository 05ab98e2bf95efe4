//! A small path-tracking view over `serde_json::Value` so that every load
//! error names the JSON path at fault (`pipelines[0].tables[3].key[1]`).

use serde_json::Value;

use crate::types::LoadError;

pub type LResult<T> = Result<T, LoadError>;

/// A JSON value and the path that leads to it.
#[derive(Clone)]
pub struct J<'a> {
    pub v: &'a Value,
    pub path: String,
}

static NULL: Value = Value::Null;

impl<'a> J<'a> {
    pub fn root(v: &'a Value) -> J<'a> {
        J { v, path: String::new() }
    }

    pub fn err<T>(&self, reason: impl Into<String>) -> LResult<T> {
        Err(LoadError { path: self.path.clone(), reason: reason.into() })
    }

    fn child_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// Required member.
    pub fn get(&self, key: &str) -> LResult<J<'a>> {
        match self.v.get(key) {
            Some(v) => Ok(J { v, path: self.child_path(key) }),
            None => {
                if self.v.is_object() {
                    self.err(format!("missing attribute \"{key}\""))
                } else {
                    self.err(format!("expected an object with attribute \"{key}\""))
                }
            }
        }
    }

    /// Optional member (absent or null -> None).
    pub fn opt(&self, key: &str) -> Option<J<'a>> {
        match self.v.get(key) {
            Some(Value::Null) | None => None,
            Some(v) => Some(J { v, path: self.child_path(key) }),
        }
    }

    /// Member or a null value (for attributes that may be absent).
    pub fn get_or_null(&self, key: &str) -> J<'a> {
        match self.v.get(key) {
            Some(v) => J { v, path: self.child_path(key) },
            None => J { v: &NULL, path: self.child_path(key) },
        }
    }

    pub fn is_null(&self) -> bool {
        self.v.is_null()
    }

    pub fn arr(&self) -> LResult<Vec<J<'a>>> {
        match self.v.as_array() {
            Some(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, v)| J { v, path: format!("{}[{}]", self.path, i) })
                .collect()),
            None => self.err("expected an array"),
        }
    }

    /// Array member that may be absent (-> empty).
    pub fn arr_opt(&self, key: &str) -> LResult<Vec<J<'a>>> {
        match self.opt(key) {
            Some(j) => j.arr(),
            None => Ok(Vec::new()),
        }
    }

    pub fn str(&self) -> LResult<&'a str> {
        match self.v.as_str() {
            Some(s) => Ok(s),
            None => self.err("expected a string"),
        }
    }

    pub fn u64(&self) -> LResult<u64> {
        match self.v.as_u64() {
            Some(n) => Ok(n),
            None => match self.v.as_str().and_then(|s| s.parse::<u64>().ok()) {
                Some(n) => Ok(n),
                None => self.err("expected a non-negative integer"),
            },
        }
    }

    pub fn u32(&self) -> LResult<u32> {
        let n = self.u64()?;
        u32::try_from(n).or_else(|_| self.err("integer out of range"))
    }

    pub fn i64(&self) -> LResult<i64> {
        match self.v.as_i64() {
            Some(n) => Ok(n),
            None => self.err("expected an integer"),
        }
    }

    pub fn bool(&self) -> LResult<bool> {
        match self.v.as_bool() {
            Some(b) => Ok(b),
            None => self.err("expected a boolean"),
        }
    }

    /// A boolean as BMv2 reads one (jsoncpp `asBool`): `true`/`false` or an
    /// integer, non-zero meaning true (p4c writes bool header fields
    /// `["x", 1, 0]`).
    pub fn flag(&self) -> LResult<bool> {
        match (self.v.as_bool(), self.v.as_i64(), self.v.as_u64()) {
            (Some(b), _, _) => Ok(b),
            (_, Some(n), _) => Ok(n != 0),
            (_, _, Some(n)) => Ok(n != 0),
            _ => self.err("expected a boolean or an integer"),
        }
    }

    pub fn bool_or(&self, key: &str, dflt: bool) -> LResult<bool> {
        match self.opt(key) {
            Some(j) => j.bool(),
            None => Ok(dflt),
        }
    }

    pub fn name(&self) -> LResult<&'a str> {
        self.get("name")?.str()
    }
}
