//! The `bpf` system call, for the objects the `xdp` ports need: an XSKMAP
//! (slot -> AF_XDP socket), a hash map (interface -> its slots), the XDP
//! program (its instructions come from [`crate::xdpprog`]), and a link per
//! interface attaching the program to it. A link detaches the program when
//! its descriptor is closed, so a switch that exits — or crashes — leaves no
//! program behind.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::owned;

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_MAP_TYPE_HASH: u32 = 1;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
const BPF_XDP: u32 = 37;
const BPF_F_XDP_HAS_FRAGS: u32 = 1 << 5;
const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
const XDP_FLAGS_DRV_MODE: u32 = 1 << 2;

/// `bpf(cmd, attr)` with `attr` zero-padded to 128 bytes (the kernel wants
/// the bytes it does not know to be zero).
fn bpf<T>(cmd: libc::c_long, attr: &T) -> io::Result<libc::c_int> {
    let mut buf = [0u8; 128];
    let n = std::mem::size_of::<T>().min(buf.len());
    // SAFETY: T is a plain repr(C) attribute struct of n bytes.
    unsafe { std::ptr::copy_nonoverlapping(attr as *const T as *const u8, buf.as_mut_ptr(), n) };
    // SAFETY: buf is a valid bpf_attr-sized buffer for the duration of the call.
    let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, buf.as_ptr(), buf.len() as libc::c_uint) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as libc::c_int)
}

#[repr(C)]
struct MapCreate {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    inner_map_fd: u32,
    numa_node: u32,
    map_name: [u8; 16],
}

#[repr(C)]
struct MapUpdate {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

#[repr(C)]
struct ProgLoad {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
}

#[repr(C)]
struct LinkCreate {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

/// A map: an XSKMAP (slot `k` holds the AF_XDP socket that receives the
/// frames the program redirects to `k`) or a hash map.
pub struct BpfMap {
    fd: OwnedFd,
    key_size: usize,
    value_size: usize,
}

impl BpfMap {
    fn create(map_type: u32, key_size: u32, value_size: u32, entries: u32, name: &[u8; 16]) -> io::Result<BpfMap> {
        let attr = MapCreate {
            map_type,
            key_size,
            value_size,
            max_entries: entries.max(1),
            map_flags: 0,
            inner_map_fd: 0,
            numa_node: 0,
            map_name: *name,
        };
        Ok(BpfMap { fd: owned(bpf(BPF_MAP_CREATE, &attr)?)?, key_size: key_size as usize, value_size: value_size as usize })
    }

    /// A new XSKMAP with `slots` slots.
    pub fn xskmap(slots: u32) -> io::Result<BpfMap> {
        Self::create(BPF_MAP_TYPE_XSKMAP, 4, 4, slots, b"p4switch_xsks\0\0\0")
    }

    /// A new hash map of `entries` entries from u32 keys to `value_size`-byte values.
    pub fn hash_u32(value_size: u32, entries: u32, name: &[u8; 16]) -> io::Result<BpfMap> {
        Self::create(BPF_MAP_TYPE_HASH, 4, value_size, entries, name)
    }

    /// Sets `key` to `value` (their lengths are the map's key and value sizes).
    pub fn update(&self, key: &[u8], value: &[u8]) -> io::Result<()> {
        // The kernel reads the map's sizes from the two pointers.
        if key.len() != self.key_size || value.len() != self.value_size {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "bpf map update: key or value of the wrong size"));
        }
        let attr = MapUpdate {
            map_fd: self.fd.as_raw_fd() as u32,
            _pad: 0,
            key: key.as_ptr() as u64,
            value: value.as_ptr() as u64,
            flags: 0,
        };
        bpf(BPF_MAP_UPDATE_ELEM, &attr).map(|_| ())
    }

    /// Puts socket `sock` in slot `slot` of an XSKMAP.
    pub fn set(&self, slot: u32, sock: RawFd) -> io::Result<()> {
        self.update(&slot.to_ne_bytes(), &(sock as u32).to_ne_bytes())
    }

    /// The map's descriptor (the program refers to it by this number).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// A loaded XDP program.
pub struct BpfProgram {
    fd: OwnedFd,
}

impl BpfProgram {
    /// Loads an XDP program from raw instructions (8 bytes each, native byte
    /// order). `frags`: the program accepts frames spanning several buffers
    /// (needed for jumbo frames on a native-XDP veth). A refusal carries the
    /// verifier's log.
    pub fn load_xdp(insns: &[u64], frags: bool) -> io::Result<BpfProgram> {
        let license = b"Dual MIT/GPL\0";
        let mut attr = ProgLoad {
            prog_type: BPF_PROG_TYPE_XDP,
            insn_cnt: insns.len() as u32,
            insns: insns.as_ptr() as u64,
            license: license.as_ptr() as u64,
            log_level: 0,
            log_size: 0,
            log_buf: 0,
            kern_version: 0,
            prog_flags: if frags { BPF_F_XDP_HAS_FRAGS } else { 0 },
            prog_name: *b"p4switch_xdp\0\0\0\0",
        };
        match bpf(BPF_PROG_LOAD, &attr) {
            Ok(fd) => Ok(BpfProgram { fd: owned(fd)? }),
            Err(first) => {
                // Load again with the verifier's log to say why.
                let mut log = vec![0u8; 1 << 16];
                attr.log_level = 1;
                attr.log_size = log.len() as u32;
                attr.log_buf = log.as_mut_ptr() as u64;
                if let Ok(fd) = bpf(BPF_PROG_LOAD, &attr) {
                    return Ok(BpfProgram { fd: owned(fd)? });
                }
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                let text = String::from_utf8_lossy(&log[..end]);
                let tail: Vec<&str> = text.lines().rev().take(3).collect();
                Err(io::Error::new(first.kind(), format!("XDP program refused: {first}; verifier: {}", tail.join(" | "))))
            }
        }
    }
}

/// How an XDP program runs on an interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XdpAttachMode {
    /// In the driver, before a socket buffer exists (veth supports it).
    Native,
    /// In the kernel's receive path, on the socket buffer (any interface).
    Generic,
}

/// A program attached to an interface; detached when dropped.
pub struct BpfLink {
    _fd: OwnedFd,
}

impl BpfLink {
    /// Attaches `prog` to interface `ifindex` in `mode`.
    pub fn attach_xdp(prog: &BpfProgram, ifindex: i32, mode: XdpAttachMode) -> io::Result<BpfLink> {
        let attr = LinkCreate {
            prog_fd: prog.fd.as_raw_fd() as u32,
            target_ifindex: ifindex as u32,
            attach_type: BPF_XDP,
            flags: match mode {
                XdpAttachMode::Native => XDP_FLAGS_DRV_MODE,
                XdpAttachMode::Generic => XDP_FLAGS_SKB_MODE,
            },
        };
        Ok(BpfLink { _fd: owned(bpf(BPF_LINK_CREATE, &attr)?)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_xskmap_is_created_and_a_trivial_program_loads() {
        let map = BpfMap::xskmap(4).unwrap();
        assert!(map.raw_fd() >= 0);
        let ports = BpfMap::hash_u32(8, 2, b"test_ports\0\0\0\0\0\0").unwrap();
        ports.update(&7u32.to_ne_bytes(), &[1; 8]).unwrap();
        assert!(ports.update(&7u32.to_ne_bytes(), &[1; 4]).is_err(), "a short value is refused");
        // r0 = XDP_PASS (2); exit
        let insns = [0x0000_0002_0000_00b7u64, 0x0000_0000_0000_0095u64];
        BpfProgram::load_xdp(&insns, false).unwrap();
        // An out-of-range register read is refused with the verifier's words.
        let bad = [0x0000_0000_0000_0095u64];
        let e = BpfProgram::load_xdp(&bad, false).err().unwrap();
        assert!(e.to_string().contains("verifier"), "{e}");
    }
}
