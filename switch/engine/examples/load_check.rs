//! Loads BMv2 JSON files and reports, per file, whether the engine accepts
//! them (and the JSON path of the first unsupported construct otherwise).
//!
//! Run: `cargo run -p p4engine --example load_check -- build/*.json`

fn main() {
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        match std::fs::read_to_string(&path) {
            Err(e) => {
                println!("{path}: cannot read: {e}");
                bad += 1;
            }
            Ok(text) => match p4engine::load_program(&text) {
                Ok(p) => println!("{path}: ok ({} tables, {} actions)", p.info().tables.len(), p.info().actions.len()),
                Err(e) => {
                    println!("{path}: error: {e}");
                    bad += 1;
                }
            },
        }
    }
    std::process::exit(if bad == 0 { 0 } else { 1 });
}
