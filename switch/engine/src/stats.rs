//! Packet-path statistics for metrics: hits and misses of every table and
//! the colours every meter gave. Each worker counts into a block of its own
//! (one writer per block: a relaxed load and store, no locked instruction,
//! no cache line shared between workers); a reader sums the blocks. The
//! counts belong to one loaded program (`Runtime`): a new program starts
//! from zero, like its tables.
//!
//! Tables the packet path never looks up (no key, constant default action:
//! p4c's `tbl_*` wrappers of actions in control bodies) are not counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Hits and misses of one table since the program was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStats {
    pub name: String,
    pub hits: u64,
    pub misses: u64,
}

/// Packets one meter (all its cells, or all entries of a direct meter)
/// coloured green, yellow and red since the program was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeterStats {
    pub name: String,
    /// Indexed by colour: green, yellow, red.
    pub colours: [u64; 3],
}

/// What [`crate::Switch::pipeline_stats`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineStats {
    pub tables: Vec<TableStats>,
    pub meters: Vec<MeterStats>,
}

/// One worker's counts for one program.
pub(crate) struct Block {
    hits: Box<[AtomicU64]>,
    misses: Box<[AtomicU64]>,
    /// Three per meter (green, yellow, red).
    colours: Box<[AtomicU64]>,
}

fn zeros(n: usize) -> Box<[AtomicU64]> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// Adds one where this thread is the only writer.
#[inline(always)]
fn bump(c: Option<&AtomicU64>) {
    if let Some(c) = c {
        c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
    }
}

impl Block {
    fn new(tables: usize, meters: usize) -> Block {
        Block { hits: zeros(tables), misses: zeros(tables), colours: zeros(3 * meters) }
    }

    #[inline(always)]
    pub(crate) fn lookup(&self, table: usize, hit: bool) {
        bump(if hit { self.hits.get(table) } else { self.misses.get(table) });
    }

    #[inline(always)]
    pub(crate) fn colour(&self, meter: usize, colour: u64) {
        bump(self.colours.get(3 * meter + colour.min(2) as usize));
    }

    /// Adds `other`'s counts to this block (under the registry's lock; used
    /// to keep what a finished worker counted).
    fn absorb(&self, other: &Block) {
        for (mine, theirs) in [(&self.hits, &other.hits), (&self.misses, &other.misses), (&self.colours, &other.colours)] {
            for (a, b) in mine.iter().zip(theirs.iter()) {
                a.fetch_add(b.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    }
}

/// Every worker's block for one program.
pub(crate) struct Registry {
    id: u64,
    tables: usize,
    meters: usize,
    /// The first block holds the counts of workers that have ended.
    blocks: Mutex<Vec<Arc<Block>>>,
}

impl Registry {
    pub(crate) fn new(tables: usize, meters: usize) -> Registry {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Registry {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            tables,
            meters,
            blocks: Mutex::new(vec![Arc::new(Block::new(tables, meters))]),
        }
    }

    /// Sums the blocks: (hits, misses) per table and colours per meter.
    /// Blocks of ended workers are folded into the first.
    pub(crate) fn sums(&self) -> (Vec<(u64, u64)>, Vec<[u64; 3]>) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        fold_ended(&mut blocks);
        let get = |v: &[AtomicU64], i: usize| v.get(i).map_or(0, |c| c.load(Ordering::Relaxed));
        let tables = (0..self.tables)
            .map(|t| blocks.iter().fold((0, 0), |(h, m), b| (h + get(&b.hits, t), m + get(&b.misses, t))))
            .collect();
        let meters = (0..self.meters)
            .map(|m| {
                let mut c = [0u64; 3];
                for b in blocks.iter() {
                    for (k, v) in c.iter_mut().enumerate() {
                        *v += get(&b.colours, 3 * m + k);
                    }
                }
                c
            })
            .collect();
        (tables, meters)
    }
}

/// Folds the blocks no worker holds any more into the first one (so a
/// program run by many short-lived workers keeps a few blocks, not one each).
fn fold_ended(blocks: &mut Vec<Arc<Block>>) {
    let mut i = 1;
    while i < blocks.len() {
        if Arc::strong_count(&blocks[i]) == 1 {
            let gone = blocks.swap_remove(i);
            blocks[0].absorb(&gone);
        } else {
            i += 1;
        }
    }
}

/// A worker's handle on its block of the program it last ran.
#[derive(Default)]
pub(crate) struct WorkerCounts {
    registry: u64,
    block: Option<Arc<Block>>,
}

impl WorkerCounts {
    /// Makes sure the worker counts into its block of `reg` (joins it once
    /// per program).
    #[inline]
    pub(crate) fn fit(&mut self, reg: &Registry) {
        if self.registry != reg.id || self.block.is_none() {
            self.block = None; // the last program's block: its registry keeps the counts
            let b = Arc::new(Block::new(reg.tables, reg.meters));
            let mut blocks = reg.blocks.lock().unwrap_or_else(|e| e.into_inner());
            fold_ended(&mut blocks);
            blocks.push(b.clone());
            self.registry = reg.id;
            self.block = Some(b);
        }
    }

    /// The block [`WorkerCounts::fit`] chose.
    #[inline(always)]
    pub(crate) fn block(&self) -> Option<&Block> {
        self.block.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_counts_add_up_and_outlive_the_workers() {
        let reg = Registry::new(2, 1);
        let mut w1 = WorkerCounts::default();
        let mut w2 = WorkerCounts::default();
        w1.fit(&reg);
        w2.fit(&reg);
        let b1 = w1.block().unwrap();
        b1.lookup(0, true);
        b1.lookup(0, true);
        b1.lookup(1, false);
        b1.colour(0, 2);
        w2.block().unwrap().lookup(0, false);
        w2.block().unwrap().colour(0, 0);
        assert_eq!(reg.sums(), (vec![(2, 1), (0, 1)], vec![[1, 0, 1]]));
        drop(w1);
        assert_eq!(reg.sums(), (vec![(2, 1), (0, 1)], vec![[1, 0, 1]]), "an ended worker's counts stay");
        assert_eq!(reg.blocks.lock().unwrap().len(), 2);
        // Short-lived workers do not pile up blocks.
        for _ in 0..100 {
            let mut w = WorkerCounts::default();
            w.fit(&reg);
            w.block().unwrap().lookup(1, true);
        }
        assert_eq!(reg.blocks.lock().unwrap().len(), 3, "the first, w2's and the last one's");
        assert_eq!(reg.sums().0[1], (100, 1));
        // A new program: the worker joins its registry, which starts at zero.
        let reg2 = Registry::new(1, 0);
        w2.fit(&reg2);
        w2.block().unwrap().lookup(0, true);
        assert_eq!(reg2.sums(), (vec![(1, 0)], vec![]));
    }
}
