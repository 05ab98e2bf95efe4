//! What the receive and transmit rings share: the packet-socket options that
//! set a ring up, and the shared memory mapping of the ring, unmapped on drop.

use std::io;
use std::os::fd::RawFd;

pub(crate) const SOL_PACKET: libc::c_int = 263;
pub(crate) const PACKET_RX_RING: libc::c_int = 5;
pub(crate) const PACKET_VERSION: libc::c_int = 10;
pub(crate) const PACKET_TX_RING: libc::c_int = 13;
pub(crate) const PACKET_LOSS: libc::c_int = 14;
pub(crate) const TPACKET_V2: libc::c_int = 1;
pub(crate) const TPACKET_V3: libc::c_int = 2;

/// `setsockopt(fd, SOL_PACKET, name, value)`.
pub(crate) fn packet_option<T>(fd: RawFd, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: value points to a live T whose size is passed along.
    let r = unsafe {
        libc::setsockopt(fd, SOL_PACKET, name, value as *const T as *const libc::c_void, std::mem::size_of::<T>() as u32)
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The mapping of a ring the kernel has just allocated for a socket.
pub(crate) struct Mapping {
    pub base: *mut u8,
    pub len: usize,
}

// SAFETY: the mapping is owned by this value; the rings that hold it decide
// who may touch which part of it.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of the ring of `fd`, locked in memory when
    /// RLIMIT_MEMLOCK allows it, and faulted in up front.
    pub fn ring(fd: RawFd, len: usize) -> io::Result<Mapping> {
        Mapping::at(fd, len, 0)
    }

    /// [`Mapping::ring`] of the ring at `offset` (AF_XDP sockets map each ring at its own offset).
    pub fn at(fd: RawFd, len: usize, offset: i64) -> io::Result<Mapping> {
        for flags in [libc::MAP_SHARED | libc::MAP_LOCKED | libc::MAP_POPULATE, libc::MAP_SHARED | libc::MAP_POPULATE] {
            // SAFETY: mapping the ring the kernel allocated for this fd.
            let base = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, fd, offset) };
            if base != libc::MAP_FAILED {
                return Ok(Mapping { base: base as *mut u8, len });
            }
        }
        Err(io::Error::last_os_error())
    }

    /// `len` bytes of fresh zeroed memory, faulted in (the frame area of an AF_XDP socket).
    pub fn anonymous(len: usize) -> io::Result<Mapping> {
        // SAFETY: an anonymous private mapping, owned by the returned value.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping { base: base as *mut u8, len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: base/len come from a successful mmap.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}
