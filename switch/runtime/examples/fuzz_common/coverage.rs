//! What the frames of a fuzz run exercised in the program, read from the
//! engine's per-packet trace (`Worker::set_trace`): parser states, table
//! lookups, the action each lookup ran (table x action pairs), actions run
//! outside tables, and both outcomes of every condition. A frame that reaches
//! something no earlier frame did is worth keeping as a seed.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use p4engine::Worker;

#[derive(Default)]
struct Seen {
    /// Every point reached so far: "state PARSER STATE", "table T",
    /// "pair T A", "action A", "branch COND true|false".
    points: HashMap<String, u64>,
    /// Points reached for the first time by the current frame.
    new: usize,
    /// The table of the previous trace line, if it was a lookup.
    table: Option<String>,
    key: String,
}

impl Seen {
    fn hit(&mut self) {
        match self.points.get_mut(self.key.as_str()) {
            Some(n) => *n += 1,
            None => {
                self.points.insert(self.key.clone(), 1);
                self.new += 1;
            }
        }
    }

    fn line(&mut self, line: &str) {
        self.key.clear();
        let table = self.table.take();
        if let Some((parser, rest)) = line.strip_prefix("parser ").and_then(|l| l.split_once(": state ")) {
            let state = rest.rsplit_once(" at byte ").map_or(rest, |(s, _)| s);
            let _ = write!(self.key, "state {parser} {state}");
        } else if let Some((name, _)) = line.strip_prefix("table ").and_then(|l| l.split_once(": ")) {
            self.key.push_str("table ");
            self.key.push_str(name);
            self.table = Some(name.to_string());
        } else if let Some(action) = line.strip_prefix("action ") {
            let _ = match table {
                Some(t) => write!(self.key, "pair {t} {action}"),
                None => write!(self.key, "action {action}"),
            };
        } else if let Some((cond, v)) = line.strip_prefix("condition ").and_then(|l| l.rsplit_once(": ")) {
            let _ = write!(self.key, "branch {cond} {v}");
        } else {
            return; // log_msg text
        }
        self.hit();
    }
}

/// Coverage of one worker's frames (install with [`Coverage::attach`]).
#[derive(Clone, Default)]
pub struct Coverage(Arc<Mutex<Seen>>);

impl Coverage {
    /// Routes `w`'s trace into this coverage.
    pub fn attach(&self, w: &mut Worker) {
        let seen = self.0.clone();
        w.set_trace(Some(Box::new(move |line: &str| seen.lock().unwrap().line(line))));
    }

    /// How many points the frames since the last call reached for the first time.
    pub fn take_new(&self) -> usize {
        std::mem::take(&mut self.0.lock().unwrap().new)
    }

    /// Every point reached, sorted, with how many times.
    pub fn points(&self) -> Vec<(String, u64)> {
        let mut v: Vec<_> = self.0.lock().unwrap().points.iter().map(|(k, n)| (k.clone(), *n)).collect();
        v.sort();
        v
    }
}
