//! `p4switch`: the simple_switch_grpc-compatible front of the switch — command
//! line, ports (AF_PACKET sockets, pcap files, captures), worker threads and the
//! P4Runtime server hook-up. The pipeline itself is the `p4engine` crate.
//!
//! Modules: [`cli`] (arguments), [`sys`], [`rxring`], [`txring`], [`udpgso`] and `ringmap` (the only `unsafe`/libc code),
//! [`wire`] (frame fix-ups), [`pcap`] (pcap reader/writer), [`ports`]
//! (AF_PACKET ports and workers), [`files`] (`--use-files` ports), [`grpc`],
//! [`app`] (putting it together), [`log`].

pub mod app;
pub mod cli;
pub mod files;
pub mod grpc;
pub mod log;
pub mod pcap;
pub mod ports;
mod ringmap;
pub mod rxring;
pub mod sys;
pub mod txring;
pub mod udpgso;
pub mod wire;
