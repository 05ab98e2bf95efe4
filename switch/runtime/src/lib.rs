//! `p4runtime-server`: the P4Runtime v1 gRPC service of p4switch, a thin
//! adapter over the `p4engine` control API.
//!
//! Entry point for the switch binary: [`spawn`] with [`ServerOptions`], the
//! shared [`p4engine::Switch`] and a [`Transmit`] function; feed frames the
//! pipeline sends to the CPU port to [`ServerHandle::packet_in`].
//!
//! Layout: the logic lives in plain modules that tests call without a socket
//! (`canonical` byte strings, `schema` P4Info id maps, `tables` entry
//! translation, `valuesets`, `arbitration`, `digests` batching, `packetio`
//! controller headers, `pipeline` configs, `device` = all RPCs); `service` is the tonic
//! adapter, `server` the threads and options, `stats` the counters and RPC
//! hook behind p4switch's metrics.
//!
//! No-panic contract: no request, however malformed, panics the server; bad
//! input is a gRPC error.

// No unsafe code in this crate, the generated protobuf code included.
#![forbid(unsafe_code)]

pub mod arbitration;
pub mod canonical;
pub mod device;
pub mod digests;
pub mod error;
pub mod packetio;
pub mod pipeline;
pub mod proto;
pub mod schema;
pub mod server;
pub mod service;
pub mod stats;
pub mod tables;
pub mod valuesets;

pub use device::{Device, Transmit, API_VERSION};
pub use stats::{RpcObserver, ServerStats};
pub use digests::{DigestStats, DEFAULT_MAX_DIGEST_RATE};
pub use server::{spawn, spawn_with_routes, ServerError, ServerHandle, ServerOptions, Stopped, TlsOptions};
