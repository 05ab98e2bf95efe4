//! Starting the P4Runtime server (crate `p4runtime-server`) next to the data plane.
//! Until that crate exposes its entry point the switch runs without gRPC.

use std::sync::Arc;

use p4engine::Switch;

use crate::cli::{Level, Options};
use crate::log_at;
use crate::ports::{PacketInSink, Ports};

/// A running P4Runtime server; dropping it stops the server.
pub struct Server {
    pub addr: String,
    /// Where the data plane hands packets sent to the CPU port.
    pub packet_in: Option<PacketInSink>,
}

/// Starts the server unless `--no-grpc` was given.
pub fn start(o: &Options, _switch: &Arc<Switch>, _ports: Option<Arc<Ports>>) -> Result<Option<Server>, String> {
    if o.no_grpc {
        return Ok(None);
    }
    log_at!(Level::Warn, "P4Runtime server not available in this build; running without gRPC");
    Ok(None)
}
