//! A P4Runtime server over an engine with no ports: for trying the server
//! (and its clients) before or without the p4switch binary.
//!
//!     cargo run -p p4runtime-server --example serve -- [--grpc-server-addr HOST:PORT] [--cpu-port N] [--device-id N]
//!
//! Packet-outs are printed instead of transmitted. Stops on end of standard input.

use std::io::Read;
use std::sync::Arc;

use p4engine::{Switch, SwitchConfig};
use p4runtime_server::{spawn, ServerOptions};

fn main() {
    let mut opts = ServerOptions::default();
    let mut cfg = SwitchConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match a.as_str() {
            "--grpc-server-addr" => opts.addr = value(&a),
            "--cpu-port" => cfg.cpu_port = Some(value(&a).parse().unwrap_or_else(|_| fail("bad --cpu-port"))),
            "--device-id" => cfg.device_id = value(&a).parse().unwrap_or_else(|_| fail("bad --device-id")),
            _ => fail(&format!("unknown option {a}")),
        }
    }
    let switch = Arc::new(Switch::new(cfg));
    let tx = Arc::new(|port: u32, frame: &[u8]| println!("packet-out result: port {port}, {} bytes", frame.len()));
    let server = spawn(opts, switch, tx).unwrap_or_else(|e| fail(&e.to_string()));
    println!("P4Runtime server listening on {}", server.local_addr());
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    server.shutdown();
}

fn fail(msg: &str) -> ! {
    eprintln!("serve: {msg}");
    std::process::exit(2)
}
