//! BMv2 JSON loader (stub, being written).
use crate::api::LoadError;
use crate::program::Prog;

pub fn load(json: &str) -> Result<Prog, LoadError> {
    let _v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| LoadError { path: String::new(), reason: format!("invalid JSON: {e}") })?;
    Ok(Prog { info: Default::default() })
}
