//! What reached the wire: the kernel's packet counters of an interface,
//! sampled every 100 ms from a thread inside the interface's namespace.
//!
//! `/proc/thread-self/net/dev` lists the interfaces of the calling thread's
//! network namespace (unlike `/sys/class/net`, which shows the namespace
//! sysfs was mounted in), so no `ip netns exec` and no fork per sample.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use p4switch::sys;

use crate::pacing::WINDOW_NS;

/// (received packets, received drops) of `iface` in a `/proc/net/dev` text.
pub fn rx_counters(dev: &str, iface: &str) -> Option<(u64, u64)> {
    dev.lines().skip(2).find_map(|line| {
        let (name, rest) = line.split_once(':')?;
        if name.trim() != iface {
            return None;
        }
        let f: Vec<u64> = rest.split_whitespace().map(|v| v.parse().ok()).collect::<Option<_>>()?;
        Some((*f.get(1)?, *f.get(3)?))
    })
}

fn read(iface: &str) -> io::Result<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/thread-self/net/dev")?;
    rx_counters(&text, iface)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no interface {iface:?} in /proc/net/dev")))
}

/// Samples `iface` (in namespace `ns`) just before the start and every 100 ms
/// after it until `done`; returns the samples, the first before the start.
pub fn sample(
    ns: Option<&str>,
    iface: &str,
    ready: mpsc::Sender<io::Result<()>>,
    start: mpsc::Receiver<Instant>,
    done: Arc<AtomicBool>,
) -> io::Result<Vec<(u64, u64)>> {
    let setup = || -> io::Result<()> {
        if let Some(ns) = ns {
            sys::enter_netns(ns)?;
        }
        sys::precise_sleeps();
        read(iface).map(|_| ())
    };
    if let Err(e) = setup() {
        let _ = ready.send(Err(io::Error::new(e.kind(), e.to_string())));
        return Err(e);
    }
    let _ = ready.send(Ok(()));
    let start = start.recv().map_err(|_| io::Error::other("trial aborted before the start"))?;
    let mut samples = Vec::with_capacity(1024);
    // Nothing is sent before the start: the first sample, taken now, is exact
    // even if this thread wakes up late for the next ones.
    samples.push(read(iface)?);
    for k in 1u32.. {
        let at = start + std::time::Duration::from_nanos(WINDOW_NS * k as u64);
        if let Some(wait) = at.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        samples.push(read(iface)?);
        if done.load(Ordering::Relaxed) {
            break;
        }
    }
    Ok(samples)
}

/// Packets per window from consecutive samples.
pub fn deltas(samples: &[(u64, u64)]) -> (Vec<u64>, u64) {
    let packets = samples.windows(2).map(|w| w[1].0.saturating_sub(w[0].0)).collect();
    let drops = match (samples.first(), samples.last()) {
        (Some(a), Some(b)) => b.1.saturating_sub(a.1),
        _ => 0,
    };
    (packets, drops)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: &str = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1234      10    0    0    0     0          0         0     1234      10    0    0    0     0       0          0
hg-b0: 64000000 1000000    0    7    0     0          0         0        0       0    0    0    0     0       0          0
";

    #[test]
    fn counters_of_the_named_interface() {
        assert_eq!(rx_counters(DEV, "hg-b0"), Some((1_000_000, 7)));
        assert_eq!(rx_counters(DEV, "lo"), Some((10, 0)));
        assert_eq!(rx_counters(DEV, "hg-b"), None);
        assert_eq!(rx_counters("garbage", "lo"), None);
        assert_eq!(rx_counters("a\nb\n  lo: x y z\n", "lo"), None);
    }

    #[test]
    fn deltas_per_window() {
        let (p, d) = deltas(&[(100, 0), (200, 0), (350, 2), (350, 5)]);
        assert_eq!((p, d), (vec![100, 150, 0], 5));
        assert_eq!(deltas(&[]), (vec![], 0));
    }

    #[test]
    fn own_namespace_has_loopback() {
        assert!(read("lo").is_ok());
        assert!(read("no-such-if0").unwrap_err().to_string().contains("no-such-if0"));
    }
}
