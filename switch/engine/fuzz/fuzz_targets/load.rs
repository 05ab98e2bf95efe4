//! Any byte string given to the JSON loader: a program or a LoadError, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(p) = p4engine::load_program(text) {
            let sw = p4engine::Switch::new(p4engine::SwitchConfig::default());
            sw.set_program(p);
            let mut w = sw.new_worker();
            sw.process(&mut w, 1, &[0u8; 64], &mut |_, _| {});
        }
    }
});
