//! The only module with `unsafe` code and libc calls (the crate denies
//! `unsafe_code` everywhere else): packet sockets and their rings
//! ([`packet`], `rxring`, `txring`, `ringmap`), AF_XDP sockets and their
//! shared memory ([`xsk`]), the `bpf` system call that loads the tiny XDP
//! program of the `xdp` ports (`bpf`), interface settings through ioctls,
//! `poll`, an eventfd the SIGINT/SIGTERM handler writes, `setns`, clocks.
//! Everything returns `io::Result`; nothing panics on kernel data, and every
//! offset the kernel hands over is bounds-checked before a slice is made.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

mod bpf;
pub mod packet;
mod ringmap;
pub mod rxring;
pub mod txring;
pub mod xsk;

pub use bpf::{BpfLink, BpfMap, BpfProgram, XdpAttachMode};
pub use packet::{Fanout, PacketSocket, RecvBatch, SocketOptions, TxBatch, RX_BATCH, TX_BATCH};
pub use rxring::{RxBlock, RxFrame, RxLayout};
pub use xsk::{UmemShared, XskSocket};

/// Largest frame the switch receives or sends (jumbo frames up to 9216 bytes).
pub const MAX_FRAME: usize = 9216;

const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_SRXCSUM: u32 = 0x15;
const ETHTOOL_GTXCSUM: u32 = 0x16;
const ETHTOOL_STXCSUM: u32 = 0x17;
const ETHTOOL_SSG: u32 = 0x19;
const ETHTOOL_STSO: u32 = 0x1f;
const ETHTOOL_SGSO: u32 = 0x24;
const ETHTOOL_SGRO: u32 = 0x2c;
const ETHTOOL_GCHANNELS: u32 = 0x3c;

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
#[derive(Default)]
struct EthtoolChannels {
    cmd: u32,
    max_rx: u32,
    max_tx: u32,
    max_other: u32,
    max_combined: u32,
    rx_count: u32,
    tx_count: u32,
    other_count: u32,
    combined_count: u32,
}

#[repr(C)]
struct IfreqData {
    name: [u8; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// `setsockopt(fd, level, name, value)`.
pub(crate) fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` points to a live T of the given size for the duration of the call.
    cvt(unsafe {
        libc::setsockopt(fd, level, name, value as *const T as *const libc::c_void, std::mem::size_of::<T>() as libc::socklen_t)
    })
    .map(|_| ())
}

/// `getsockopt(fd, level, name)` into a `T` (plain data); returns the length the kernel wrote.
pub(crate) fn getsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &mut T) -> io::Result<usize> {
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: value/len describe a writable buffer of size_of::<T>() bytes.
    cvt(unsafe { libc::getsockopt(fd, level, name, value as *mut T as *mut libc::c_void, &mut len) })?;
    Ok(len as usize)
}

/// `setsockopt(fd, SOL_PACKET, name, value)`.
pub(crate) fn set_packet_option<T>(fd: RawFd, name: libc::c_int, value: &T) -> io::Result<()> {
    ringmap::packet_option(fd, name, value)
}

/// A descriptor we own, from a raw system call result.
fn owned(fd: libc::c_int) -> io::Result<OwnedFd> {
    let fd = cvt(fd)?;
    // SAFETY: fd is a fresh descriptor returned to us by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Interface index of `name`, or an error naming the interface.
pub fn ifindex(name: &str) -> io::Result<i32> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('/') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("invalid interface name {name:?}")));
    }
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("invalid interface name {name:?}")))?;
    // SAFETY: `c` is a valid NUL-terminated string.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if idx == 0 {
        return Err(io::Error::new(io::ErrorKind::NotFound, format!("no such network interface {name:?}")));
    }
    Ok(idx as i32)
}

/// A datagram socket for interface ioctls (in the calling thread's namespace).
fn ioctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; `owned` takes the descriptor.
    owned(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })
}

/// One ethtool command on `iface` whose argument is `arg` (its first word is the command).
fn ethtool<T>(sock: &OwnedFd, iface: &str, arg: &mut T) -> io::Result<()> {
    let mut req = IfreqData { name: [0; libc::IFNAMSIZ], data: arg as *mut T as *mut libc::c_void, _pad: [0; 16] };
    let n = iface.len().min(libc::IFNAMSIZ - 1);
    req.name[..n].copy_from_slice(&iface.as_bytes()[..n]);
    // SAFETY: req is a properly laid out ifreq whose data points to `arg`, alive for the call.
    cvt(unsafe { libc::ioctl(sock.as_raw_fd(), SIOCETHTOOL as _, &mut req as *mut IfreqData) })?;
    Ok(())
}

/// One ethtool value command (`ETHTOOL_G*`/`ETHTOOL_S*`): returns the value
/// the kernel wrote back (for a get) or `data` (for a set).
fn ethtool_value(sock: &OwnedFd, iface: &str, cmd: u32, data: u32) -> io::Result<u32> {
    let mut value = EthtoolValue { cmd, data };
    ethtool(sock, iface, &mut value)?;
    Ok(value.data)
}

/// Turns off checksum offload, scatter-gather, TSO, GSO and GRO on `iface` so
/// frames seen through AF_PACKET are wire frames. Returns the settings that the
/// driver refused (a veth accepts all of them).
pub fn disable_offloads(iface: &str) -> io::Result<Vec<&'static str>> {
    let sock = ioctl_socket()?;
    let mut refused = Vec::new();
    for (cmd, what) in [
        (ETHTOOL_SGRO, "gro"),
        (ETHTOOL_SGSO, "gso"),
        (ETHTOOL_STSO, "tso"),
        (ETHTOOL_SSG, "sg"),
        (ETHTOOL_STXCSUM, "tx-checksum"),
        (ETHTOOL_SRXCSUM, "rx-checksum"),
    ] {
        if ethtool_value(&sock, iface, cmd, 0).is_err() {
            refused.push(what);
        }
    }
    Ok(refused)
}

/// Whether `iface` offloads transmit checksums. When it does not, the kernel
/// also cannot hand it UDP segmentation (it needs checksum offload), so UDP GSO
/// super-frames are cut into wire frames before they reach the device.
pub fn tx_checksum_offload(iface: &str) -> io::Result<bool> {
    let sock = ioctl_socket()?;
    ethtool_value(&sock, iface, ETHTOOL_GTXCSUM, 0)
        .map(|v| v != 0)
        .map_err(|e| io::Error::new(e.kind(), format!("{iface}: ethtool tx-checksum: {e}")))
}

/// Receive queues of `iface` (1 if the driver does not say: one queue).
pub fn rx_queues(iface: &str) -> u32 {
    let Ok(sock) = ioctl_socket() else { return 1 };
    let mut ch = EthtoolChannels { cmd: ETHTOOL_GCHANNELS, ..Default::default() };
    match ethtool(&sock, iface, &mut ch) {
        Ok(()) => (ch.rx_count + ch.combined_count).max(1),
        Err(_) => 1,
    }
}

/// The MTU of `iface` in the calling thread's network namespace.
pub fn mtu(iface: &str) -> io::Result<u32> {
    let sock = ioctl_socket()?;
    mtu_of(sock.as_raw_fd(), iface)
}

/// The MTU of `iface`, asked through socket `fd` (so in the socket's network namespace).
fn mtu_of(fd: RawFd, iface: &str) -> io::Result<u32> {
    const SIOCGIFMTU: libc::c_ulong = 0x8921;
    #[repr(C)]
    struct IfreqMtu {
        name: [u8; libc::IFNAMSIZ],
        mtu: libc::c_int,
        _pad: [u8; 20],
    }
    let mut req = IfreqMtu { name: [0; libc::IFNAMSIZ], mtu: 0, _pad: [0; 20] };
    let n = iface.len().min(libc::IFNAMSIZ - 1);
    req.name[..n].copy_from_slice(&iface.as_bytes()[..n]);
    // SAFETY: req is a valid ifreq-sized buffer for SIOCGIFMTU.
    cvt(unsafe { libc::ioctl(fd, SIOCGIFMTU as _, &mut req as *mut IfreqMtu) })?;
    Ok(req.mtu.max(0) as u32)
}

/// Waits until one of `fds` is readable (or has an error) or `timeout` passes
/// (`None`: no limit); sets `ready[i]` and returns how many are ready. An
/// interrupted wait returns 0.
pub fn poll_fds(fds: &[RawFd], ready: &mut [bool], timeout: Option<Duration>) -> io::Result<usize> {
    let mut pfds: [libc::pollfd; 64] = [libc::pollfd { fd: -1, events: 0, revents: 0 }; 64];
    let n = fds.len().min(pfds.len());
    for (p, &fd) in pfds.iter_mut().zip(&fds[..n]) {
        *p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    }
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: pfds[..n] is a valid pollfd array, tsp is null or points to a live timespec.
    let r = unsafe { libc::ppoll(pfds.as_mut_ptr(), n as libc::nfds_t, tsp, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        ready.iter_mut().for_each(|r| *r = false);
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(0);
        }
        return Err(e);
    }
    for (r, p) in ready.iter_mut().zip(&pfds[..n]) {
        *r = p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0;
    }
    Ok(r as usize)
}

/// [`poll_fds`] with a timeout in milliseconds.
pub fn poll_readable(fds: &[RawFd], ready: &mut [bool], timeout_ms: i32) -> io::Result<usize> {
    poll_fds(fds, ready, Some(Duration::from_millis(timeout_ms.max(0) as u64)))
}

static STOP: AtomicBool = AtomicBool::new(false);
static STOP_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_stop_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    let fd = STOP_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let one: u64 = 1;
        // SAFETY: write(2) is async-signal-safe; `one` is a live 8-byte buffer.
        unsafe {
            libc::write(fd, &one as *const u64 as *const libc::c_void, 8);
        }
    }
}

/// Installs SIGINT/SIGTERM handlers and returns the flag they set. The same
/// signal makes [`stop_fd`] readable, so threads blocked in `poll` wake at once.
pub fn stop_flag() -> io::Result<&'static AtomicBool> {
    if STOP_FD.load(Ordering::SeqCst) < 0 {
        // SAFETY: plain eventfd creation; the descriptor lives as long as the process.
        let fd = cvt(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
        STOP_FD.store(fd, Ordering::SeqCst);
    }
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing an async-signal-safe handler (an atomic store and a write).
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        // SAFETY: sa is initialised; the old action is not needed.
        cvt(unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) })?;
    }
    Ok(&STOP)
}

/// Sets the stop flag as a signal would (end of pcap input, tests).
pub fn request_stop() {
    on_stop_signal(0);
}

/// A descriptor that becomes readable once a stop was requested (after
/// [`stop_flag`]; -1 before). It stays readable: every waiter sees it.
pub fn stop_fd() -> RawFd {
    STOP_FD.load(Ordering::SeqCst)
}

/// Moves the calling thread into the network namespace `name` (as created by
/// `ip netns add NAME`). Sockets opened afterwards by this thread belong to it.
pub fn enter_netns(name: &str) -> io::Result<()> {
    let path = format!("/var/run/netns/{name}");
    let f = std::fs::File::open(&path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
    // SAFETY: f is an open namespace file for the duration of the call.
    cvt(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) })
        .map(|_| ())
        .map_err(|e| io::Error::new(e.kind(), format!("setns {name}: {e}")))
}

/// Lowers the timer slack of the calling thread to 1 ns so short sleeps are precise.
pub fn precise_sleeps() {
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Current time from CLOCK_REALTIME as (seconds, microseconds), for pcap records.
pub fn now_timeval() -> (u32, u32) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as u32, d.subsec_micros())
}

/// The calling thread's nice value (from /proc: getpriority's -1 is both a
/// nice value and its error).
pub fn thread_nice() -> io::Result<i32> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat")?;
    // Field 19; the name (field 2, in parentheses) may hold spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    rest.split_whitespace()
        .nth(16)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "/proc/thread-self/stat: no nice field"))
}

/// The scheduling class a thread put below the others gets (`--control-sched`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    /// SCHED_BATCH: its wake-ups do not preempt a running thread (it waits
    /// for the tick or a free CPU); nice sets its share of a busy CPU, so it
    /// still progresses.
    Batch,
    /// SCHED_IDLE: weight 3 whatever the nice value (~0.3 % of a CPU a
    /// worker keeps busy), so in practice CPU only when a core has nothing
    /// else to run, and a waking worker preempts it at once; on a CPU kept
    /// busy its work can wait long.
    Idle,
}

impl Sched {
    pub fn parse(s: &str) -> Result<Sched, String> {
        match s {
            "batch" => Ok(Sched::Batch),
            "idle" => Ok(Sched::Idle),
            _ => Err(format!("--control-sched {s:?}: expected batch or idle")),
        }
    }

    /// The kernel's name, for the log.
    pub fn name(self) -> &'static str {
        match self {
            Sched::Batch => "SCHED_BATCH",
            Sched::Idle => "SCHED_IDLE",
        }
    }
}

/// Puts the calling thread below the others: under `sched` (see [`Sched`])
/// at nice `nice`. Threads it starts afterwards inherit both. Lowering
/// priority needs no privilege.
pub fn lower_thread_priority(nice: i32, sched: Sched) -> io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    let policy = match sched {
        Sched::Batch => libc::SCHED_BATCH,
        Sched::Idle => libc::SCHED_IDLE,
    };
    // SAFETY: plain system calls; param is a valid sched_param. Linux applies
    // both to one thread (pid 0 / a tid), not the whole process.
    unsafe {
        if libc::sched_setscheduler(0, policy, &param) != 0 {
            return Err(io::Error::last_os_error());
        }
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, nice) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Reads `clock` in nanoseconds (0 if it cannot be read).
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec to write.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC in nanoseconds: the clock of `bpf_ktime_get_ns`, so of the
/// arrival stamps the XDP program writes (a vDSO read, no system call).
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME in nanoseconds: the clock of the kernel's receive time
/// stamps on packet sockets (`tp_sec`/`tp_nsec`, `SO_TIMESTAMPNS`).
pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

/// CPU time the calling thread has used, in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_interface_names_are_refused_with_the_name() {
        let e = ifindex("no-such-if0").unwrap_err();
        assert!(e.to_string().contains("no-such-if0"), "{e}");
        assert!(ifindex("").is_err());
        assert!(ifindex("waytoolonginterfacename").is_err());
    }

    #[test]
    fn loopback_has_an_mtu_and_at_least_one_queue() {
        assert!(mtu("lo").unwrap() >= 1500);
        assert!(rx_queues("lo") >= 1);
        assert!(mtu("no-such-if0").is_err());
    }

    #[test]
    fn poll_times_out_and_thread_cpu_advances() {
        let mut ready = [false];
        let t0 = std::time::Instant::now();
        // An eventfd that nobody writes: never readable.
        // SAFETY: plain eventfd creation, owned right away.
        let fd = owned(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) }).unwrap();
        assert_eq!(poll_fds(&[fd.as_raw_fd()], &mut ready, Some(Duration::from_millis(20))).unwrap(), 0);
        assert!(t0.elapsed() >= Duration::from_millis(19));
        assert!(!ready[0]);
        let c0 = thread_cpu_ns();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1 && thread_cpu_ns() > c0);
    }
}
