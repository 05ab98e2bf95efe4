//! RFC 2544-style binary search for the highest rate with zero loss.

use std::io;
use std::time::Duration;

use crate::options::Opts;
use crate::pacing::Schedule;
use crate::trial;

/// Prints a `trial` line per trial and `zero_loss_pps=RATE` at the end. A trial
/// whose generator fell more than 2 % short of the offered rate counts as a
/// failure of that rate (it was not really offered).
pub fn run(o: &Opts, tag_base: u16) -> io::Result<()> {
    let (mut lo, mut hi) = (o.lo, o.hi);
    let mut n = 0u16;
    let mut pass = |rate: u64| -> io::Result<bool> {
        n = n.wrapping_add(1);
        let total = (rate as f64 * o.seconds).max(1.0) as u64;
        let r = trial::run(o, Schedule { rate: Some(rate as f64), total }, tag_base.wrapping_add(n), false)?;
        println!("{}", r.line("trial"));
        std::thread::sleep(Duration::from_millis(300));
        Ok(r.lost() == 0 && r.achieved_pps() >= 0.98 * rate as f64)
    };
    if pass(hi)? {
        lo = hi;
    } else {
        while hi > lo && (hi - lo) as f64 > o.precision * hi as f64 {
            let mid = lo + (hi - lo) / 2;
            if pass(mid.max(1))? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    println!("zero_loss_pps={lo}");
    Ok(())
}
