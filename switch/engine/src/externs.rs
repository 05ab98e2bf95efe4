//! Stateful externs: counters (atomics), RFC 2698 two-rate three-colour meters,
//! registers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::types::MeterConfig;
use crate::bits;

pub const GREEN: u64 = 0;
pub const YELLOW: u64 = 1;
pub const RED: u64 = 2;

#[derive(Default)]
pub struct CounterCell {
    pub bytes: AtomicU64,
    pub packets: AtomicU64,
}

impl CounterCell {
    #[inline]
    pub fn count(&self, bytes: u64) {
        self.packets.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// One meter: configuration (rates per second) and bucket state. Token
/// counts are kept in millionths of a unit so per-microsecond refills are exact.
#[derive(Debug, Default, Clone)]
pub struct MeterCell {
    pub cfg: Option<MeterConfig>,
    tc: u128,
    tp: u128,
    last_us: u64,
}

const SCALE: u128 = 1_000_000;

impl MeterCell {
    pub fn configure(&mut self, cfg: Option<MeterConfig>, now_us: u64) {
        self.cfg = cfg;
        if let Some(c) = cfg {
            self.tc = c.cburst as u128 * SCALE;
            self.tp = c.pburst as u128 * SCALE;
        }
        self.last_us = now_us;
    }

    /// Marks `amount` units (1 packet or the byte count) at `now_us`.
    pub fn execute(&mut self, now_us: u64, amount: u64) -> u64 {
        let Some(c) = self.cfg else { return GREEN };
        let dt = now_us.saturating_sub(self.last_us) as u128;
        self.last_us = self.last_us.max(now_us);
        // rate units/s * dt us = rate*dt millionths of a unit
        self.tc = (self.tc + c.cir as u128 * dt).min(c.cburst as u128 * SCALE);
        self.tp = (self.tp + c.pir as u128 * dt).min(c.pburst as u128 * SCALE);
        let b = amount as u128 * SCALE;
        if self.tp < b {
            RED
        } else if self.tc < b {
            self.tp -= b;
            YELLOW
        } else {
            self.tp -= b;
            self.tc -= b;
            GREEN
        }
    }
}

pub fn new_meter_array(size: u32) -> Box<[Mutex<MeterCell>]> {
    (0..size).map(|_| Mutex::new(MeterCell::default())).collect()
}

pub fn new_counter_array(size: u32) -> Box<[CounterCell]> {
    (0..size).map(|_| CounterCell::default()).collect()
}

/// A register array: atomics for cells up to 64 bits, limbs under a lock
/// for wider ones.
pub enum RegArray {
    Narrow { width: u32, cells: Box<[AtomicU64]> },
    Wide { width: u32, cells: Mutex<Vec<u64>> },
}

impl RegArray {
    pub fn new(size: u32, width: u32) -> RegArray {
        if width <= 64 {
            RegArray::Narrow { width, cells: (0..size).map(|_| AtomicU64::new(0)).collect() }
        } else {
            RegArray::Wide { width, cells: Mutex::new(vec![0; size as usize * bits::limbs(width)]) }
        }
    }

    pub fn width(&self) -> u32 {
        match self {
            RegArray::Narrow { width, .. } | RegArray::Wide { width, .. } => *width,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            RegArray::Narrow { cells, .. } => cells.len(),
            RegArray::Wide { width, cells } => cells.lock().map_or(0, |c| c.len() / bits::limbs(*width)),
        }
    }

    /// Reads cell `i` into `out` (limbs); false if out of range.
    pub fn read(&self, i: usize, out: &mut [u64]) -> bool {
        match self {
            RegArray::Narrow { cells, .. } => match cells.get(i) {
                Some(c) => {
                    if let Some(o) = out.first_mut() {
                        *o = c.load(Ordering::Relaxed);
                    }
                    for o in out.iter_mut().skip(1) {
                        *o = 0;
                    }
                    true
                }
                None => false,
            },
            RegArray::Wide { width, cells } => {
                let n = bits::limbs(*width);
                let Ok(c) = cells.lock() else { return false };
                match c.get(i * n..i * n + n) {
                    Some(s) => {
                        for (k, o) in out.iter_mut().enumerate() {
                            *o = s.get(k).copied().unwrap_or(0);
                        }
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// Writes limbs `v` (truncated to the width) to cell `i`.
    pub fn write(&self, i: usize, v: &[u64]) -> bool {
        match self {
            RegArray::Narrow { width, cells } => match cells.get(i) {
                Some(c) => {
                    c.store(v.first().copied().unwrap_or(0) & bits::mask64(*width), Ordering::Relaxed);
                    true
                }
                None => false,
            },
            RegArray::Wide { width, cells } => {
                let n = bits::limbs(*width);
                let Ok(mut c) = cells.lock() else { return false };
                match c.get_mut(i * n..i * n + n) {
                    Some(s) => {
                        for (k, o) in s.iter_mut().enumerate() {
                            *o = v.get(k).copied().unwrap_or(0);
                        }
                        bits::mask_limbs(s, *width);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    pub fn reset(&self) {
        match self {
            RegArray::Narrow { cells, .. } => cells.iter().for_each(|c| c.store(0, Ordering::Relaxed)),
            RegArray::Wide { cells, .. } => {
                if let Ok(mut c) = cells.lock() {
                    c.iter_mut().for_each(|x| *x = 0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_two_rate_three_colour() {
        let mut m = MeterCell::default();
        assert_eq!(m.execute(0, 1), GREEN, "unconfigured meter is green");
        // 1 packet/s committed, burst 2; 2 packets/s peak, burst 3.
        m.configure(Some(MeterConfig { cir: 1, cburst: 2, pir: 2, pburst: 3 }), 0);
        assert_eq!(m.execute(0, 1), GREEN);
        assert_eq!(m.execute(0, 1), GREEN);
        assert_eq!(m.execute(0, 1), YELLOW);
        assert_eq!(m.execute(0, 1), RED);
        // one second later: +1 committed, +2 peak tokens
        assert_eq!(m.execute(1_000_000, 1), GREEN);
        assert_eq!(m.execute(1_000_000, 1), YELLOW);
        assert_eq!(m.execute(1_000_000, 1), RED);
    }

    #[test]
    fn registers_narrow_and_wide() {
        let r = RegArray::new(4, 12);
        assert!(r.write(1, &[0xffff]));
        let mut o = [0u64];
        assert!(r.read(1, &mut o));
        assert_eq!(o[0], 0xfff);
        assert!(!r.read(4, &mut o));
        let w = RegArray::new(2, 100);
        assert!(w.write(1, &[1, u64::MAX]));
        let mut o2 = [0u64; 2];
        assert!(w.read(1, &mut o2));
        assert_eq!(o2, [1, (1u64 << 36) - 1]);
    }
}
