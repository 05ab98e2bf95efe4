//! Packet execution (stub, being written).
use crate::api::Switch;
use crate::runtime::Runtime;

pub struct WorkerState {}

impl WorkerState {
    pub fn new() -> WorkerState {
        WorkerState {}
    }
}

pub fn process(
    _sw: &Switch,
    _rt: &Runtime,
    _w: &mut WorkerState,
    _port: u32,
    _frame: &[u8],
    _out: &mut dyn FnMut(u32, &[u8]),
) {
}
