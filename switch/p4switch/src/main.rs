//! `p4switch` binary: see `p4switch --help` and the crate docs.

use p4switch::cli::{self, Command};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match cli::parse(args) {
        Ok(Command::Run(o)) => o,
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            return;
        }
        Ok(Command::Version) => {
            println!("p4switch {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        Err(e) => {
            eprintln!("p4switch: error: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = p4switch::log::init(opts.log_level, opts.log_console, opts.log_file.as_deref()) {
        eprintln!("p4switch: error: {e}");
        std::process::exit(1);
    }
    if let Err(e) = p4switch::app::run(&opts) {
        eprintln!("p4switch: error: {e}");
        std::process::exit(1);
    }
}
