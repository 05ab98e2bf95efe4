//! `p4engine`: the pipeline engine of p4switch. It loads BMv2 JSON (format
//! 2.x) produced by p4c's BMv2 back end or `p4compile`, and runs it with
//! v1model / simple_switch semantics. See [`api`] for the contract used by the
//! port layer and the P4Runtime server.

pub mod api;
mod exec;
mod loader;
mod program;
mod runtime;

pub use api::*;
