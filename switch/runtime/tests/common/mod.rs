//! Shared by the integration tests and the benchmark example.

pub mod client;
pub mod fixture;
pub mod rng;
