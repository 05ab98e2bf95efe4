//! A small process-wide logger with bmv2's levels. `--log-console` sends lines
//! to stdout, `--log-file` to a file; warnings and errors always reach stderr
//! when no other sink is set. Checking [`enabled`] first keeps disabled
//! per-packet logging free of formatting and allocation.

use std::fs::File;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

pub use crate::cli::Level;

static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);
static SINK: Mutex<Sink> = Mutex::new(Sink::Stderr);

enum Sink {
    Stderr,
    Stdout,
    File(File),
}

/// Sets the level and the destination (stdout if `console`, else `file`, else stderr).
pub fn init(level: Level, console: bool, file: Option<&std::path::Path>) -> io::Result<()> {
    let sink = if let Some(p) = file {
        Sink::File(File::create(p).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?)
    } else if console {
        Sink::Stdout
    } else {
        Sink::Stderr
    };
    // Without a sink only warnings and errors are printed (to stderr).
    let effective = if console || file.is_some() { level } else { level.max(Level::Warn) };
    LEVEL.store(effective as u8, Ordering::Relaxed);
    if let Ok(mut s) = SINK.lock() {
        *s = sink;
    }
    Ok(())
}

/// Whether messages at `level` are written.
#[inline]
pub fn enabled(level: Level) -> bool {
    level as u8 >= LEVEL.load(Ordering::Relaxed) && level != Level::Off
}

/// Writes one line if `level` is enabled.
pub fn write(level: Level, args: std::fmt::Arguments) {
    if !enabled(level) {
        return;
    }
    let tag = match level {
        Level::Trace => "trace",
        Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warning",
        Level::Error => "error",
        Level::Off => return,
    };
    let (s, us) = crate::sys::now_timeval();
    let line = format!("[{}.{:06}] [{tag}] {args}\n", s, us);
    if let Ok(mut sink) = SINK.lock() {
        let _ = match &mut *sink {
            Sink::Stderr => io::stderr().write_all(line.as_bytes()),
            Sink::Stdout => {
                let mut o = io::stdout().lock();
                o.write_all(line.as_bytes()).and_then(|_| o.flush())
            }
            Sink::File(f) => f.write_all(line.as_bytes()),
        };
    }
}

#[macro_export]
macro_rules! log_at {
    ($lvl:expr, $($arg:tt)*) => {
        if $crate::log::enabled($lvl) { $crate::log::write($lvl, format_args!($($arg)*)) }
    };
}

/// At `-L debug` or `-L trace`, routes the engine's per-packet trace (parser
/// states, conditions, tables hit or missed, actions, `log_msg`) to the log.
pub fn install_trace(w: &mut p4engine::Worker) {
    if enabled(Level::Debug) {
        w.set_trace(Some(Box::new(|line: &str| write(Level::Debug, format_args!("{line}")))));
    }
}
