//! Compiled program (stub, being written).
use crate::api::ProgramInfo;

pub struct Prog {
    pub info: ProgramInfo,
}

impl Prog {
    pub fn controller_header(&self, _name: &str) -> Option<Vec<(String, u32)>> {
        None
    }
}
