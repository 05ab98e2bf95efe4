//! Loss, duplicate and reordering accounting by sequence number.
//!
//! The sender numbers the frames of a trial 0..N; the receiver keeps one bit
//! per number in a bitmap allocated once, before the trial, from N. A number
//! seen before is a duplicate (counted, not received again); a new number
//! below the highest one seen so far + 1 arrived late (reordered, as RFC 2544
//! and `p4gen` have always counted it); numbers never seen are lost. A number
//! outside 0..N cannot come from this trial and is counted as `foreign`.

pub struct SeqTracker {
    seen: Vec<u64>,
    frames: u64,
    next: u64,
    /// Distinct sequence numbers received.
    pub unique: u64,
    /// Frames whose number had been received before.
    pub duplicates: u64,
    /// Frames that arrived after a higher-numbered one.
    pub reordered: u64,
    /// Numbers outside the trial's range.
    pub foreign: u64,
}

/// What one received number was.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Seen {
    InOrder,
    Late,
    Duplicate,
    Foreign,
}

impl SeqTracker {
    /// A tracker for numbers `0..frames`.
    pub fn new(frames: u64) -> SeqTracker {
        SeqTracker {
            seen: vec![0; frames.div_ceil(64) as usize],
            frames,
            next: 0,
            unique: 0,
            duplicates: 0,
            reordered: 0,
            foreign: 0,
        }
    }

    pub fn record(&mut self, seq: u64) -> Seen {
        if seq >= self.frames {
            self.foreign += 1;
            return Seen::Foreign;
        }
        let (w, bit) = ((seq / 64) as usize, 1u64 << (seq % 64));
        if self.seen[w] & bit != 0 {
            self.duplicates += 1;
            return Seen::Duplicate;
        }
        self.seen[w] |= bit;
        self.unique += 1;
        if seq < self.next {
            self.reordered += 1;
            Seen::Late
        } else {
            self.next = seq + 1;
            Seen::InOrder
        }
    }

    /// Frames of the trial never received, given how many were handed to the kernel.
    pub fn lost(&self, handed: u64) -> u64 {
        handed.saturating_sub(self.unique)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_stream_has_no_loss_duplicates_or_reordering() {
        let mut t = SeqTracker::new(1000);
        for s in 0..1000 {
            assert_eq!(t.record(s), Seen::InOrder);
        }
        assert_eq!((t.unique, t.duplicates, t.reordered, t.lost(1000)), (1000, 0, 0, 0));
    }

    #[test]
    fn duplicates_are_counted_once_each_and_not_received_twice() {
        let mut t = SeqTracker::new(10);
        for s in [0, 1, 1, 2, 2, 2, 3] {
            t.record(s);
        }
        assert_eq!((t.unique, t.duplicates, t.reordered), (4, 3, 0));
        assert_eq!(t.lost(10), 6);
    }

    #[test]
    fn a_late_frame_is_reordered_not_duplicate_and_a_late_copy_is_duplicate() {
        let mut t = SeqTracker::new(10);
        assert_eq!(t.record(0), Seen::InOrder);
        assert_eq!(t.record(2), Seen::InOrder);
        assert_eq!(t.record(1), Seen::Late);
        assert_eq!(t.record(1), Seen::Duplicate);
        assert_eq!(t.record(3), Seen::InOrder);
        assert_eq!((t.unique, t.duplicates, t.reordered, t.lost(4)), (4, 1, 1, 0));
    }

    #[test]
    fn gaps_are_loss() {
        let mut t = SeqTracker::new(100);
        for s in (0..100).step_by(2) {
            t.record(s);
        }
        assert_eq!((t.unique, t.reordered, t.lost(100)), (50, 0, 50));
    }

    #[test]
    fn numbers_outside_the_trial_are_foreign_and_do_not_panic() {
        let mut t = SeqTracker::new(64);
        assert_eq!(t.record(63), Seen::InOrder);
        assert_eq!(t.record(64), Seen::Foreign);
        assert_eq!(t.record(u64::MAX), Seen::Foreign);
        let mut empty = SeqTracker::new(0);
        assert_eq!(empty.record(0), Seen::Foreign);
        assert_eq!((t.unique, t.foreign), (1, 2));
    }
}
