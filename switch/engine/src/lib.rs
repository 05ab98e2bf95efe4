//! `p4engine`: the pipeline engine of p4switch. It loads BMv2 JSON (format
//! 2.x) produced by p4c's BMv2 back end or `p4compile`, and runs it with
//! v1model / simple_switch semantics. See [`api`] for the contract used by the
//! port layer and the P4Runtime server.
//!
//! Module map (each imports only lower layers: `tests/layers.rs`):
//! `bmv2_shapes` (what BMv2's loader refuses, checked first),
//! `loader` (JSON -> `program`), `eval` (header vector and
//! expression trees), `exec` (traffic manager; `exec/` parser, control flow,
//! primitives, deparser, and `expr`: the plan's expression shortcut, else the tree),
//! `plan` (compiled from the program: expression shortcuts, both pipelines as
//! one step array, short assignments; the interpreter runs without it), `table` (match indexes), `externs` (counters, meters, registers), `action_locks`
//! (an action's registers locked for its extent, as BMv2 does), `hash`
//! (calculations), `runtime` (state + control-plane operations), `stats` (table hits/misses
//! and meter colours per worker, for metrics).

#![forbid(unsafe_code)]

mod action_locks;
pub mod api;
mod bits;
mod bmv2_shapes;
mod eval;
mod exec;
mod externs;
mod hash;
mod json;
mod loader;
mod lpm_trie;
mod plan;
mod program;
mod runtime;
mod small_scan;
mod stats;
mod table;
mod types;

pub use api::*;
/// The Internet checksum, for the switch's frame code (one copy in the project).
pub use hash::{csum16, fold16, ones_sum};

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod robust_tests;
