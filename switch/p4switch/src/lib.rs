//! `p4switch`: the simple_switch_grpc-compatible front of the switch — command
//! line, ports (AF_XDP and AF_PACKET sockets, pcap files, captures), worker
//! threads, egress queues and the P4Runtime server hook-up with p4switch's
//! admin service. The pipeline itself is the `p4engine` crate.
//!
//! Modules: [`cli`] (arguments), [`sys`] (the only `unsafe`/libc code:
//! sockets, rings, the bpf system call), [`xdpprog`] (the XDP program's
//! instructions), [`io`] (`--io` modes: opening each worker's endpoints),
//! [`worker`] (the packet loop), [`queues`] (egress depth and rate),
//! [`ports`] (port table, counters, captures), [`admin`] (queue control over
//! gRPC), [`wire`] (frame fix-ups), [`pcap`], [`files`] (`--use-files`
//! ports), [`udpgso`] (the generator's super-frames), [`grpc`], [`app`]
//! (putting it together), [`metrics`] (`--metrics-addr`), [`log`].
#![deny(unsafe_code)]

pub mod admin;
pub mod app;
pub mod cli;
pub mod files;
pub mod grpc;
pub mod io;
pub mod log;
pub mod metrics;
pub mod pcap;
pub mod ports;
pub mod queues;
#[allow(unsafe_code)]
pub mod sys;
pub mod udpgso;
pub mod wire;
pub mod worker;
pub mod xdpprog;
