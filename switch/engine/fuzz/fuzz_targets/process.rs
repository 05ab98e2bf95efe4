//! Any frame through vrouter.p4 as the controller configures it, on any
//! ingress port: no panic, at most 64 outputs, none more than 256 bytes longer
//! than the frame (the checks of the fuzz_frames example). The set-up is the
//! example's (`vrouter apply` with build/vrouter.json, which `make build-p4`
//! writes), included from the runtime crate rather than copied.
#![no_main]
use libfuzzer_sys::fuzz_target;
use p4engine::{Switch, Worker};
use std::sync::{Arc, Mutex, OnceLock};

#[path = "../../../runtime/examples/fuzz_common/vrouter_switch.rs"]
mod vrouter_switch;

/// The switch and one worker for every input (a worker per input registers
/// a stats block each time: slower, and memory grows).
fn switch() -> &'static (Arc<Switch>, Mutex<Worker>) {
    static SW: OnceLock<(Arc<Switch>, Mutex<Worker>)> = OnceLock::new();
    SW.get_or_init(|| {
        let root = vrouter_switch::repo_root();
        let (sw, server, entries) = vrouter_switch::vrouter_switch(&root, 255).unwrap_or_else(|e| {
            eprintln!("process: cannot set up vrouter.p4: {e}");
            std::process::exit(2)
        });
        eprintln!("process: vrouter.p4 with {entries} table entries");
        server.shutdown(); // the controller is done; frames need only the switch
        let w = sw.new_worker();
        (sw, Mutex::new(w))
    })
}

// Set up before the first input, so a missing program is an error, not a
// crash libFuzzer reports for whatever input ran first.
fuzz_target!(init: { switch(); }, |data: &[u8]| {
    let (sw, w) = switch();
    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
    // two bytes of port (0..511: the front ports, the CPU port 255, others)
    let port = u16::from_be_bytes([data.first().copied().unwrap_or(0), data.get(1).copied().unwrap_or(1)]) % 512;
    let frame = data.get(2..).unwrap_or(&[]);
    let mut outs = 0usize;
    sw.process(&mut w, port as u32, frame, &mut |_, f| {
        outs += 1;
        assert!(f.len() <= frame.len() + 256, "output of {} bytes from a frame of {}", f.len(), frame.len());
    });
    assert!(outs <= 64, "{outs} outputs");
});
