//! Minimal pcap (libpcap "classic" format) reader and writer for Ethernet frames.
//!
//! The reader accepts both byte orders and both microsecond (`a1b2c3d4`) and
//! nanosecond (`a1b23c4d`) magics; timestamps come out in microseconds. It never
//! panics on malformed files: a bad header or truncated record is an `io::Error`
//! naming the file offset. The writer produces microsecond, little-endian files
//! with link type 1 (Ethernet) and snap length 262144, as tcpdump does.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::time::Instant;

const MAGIC_US: u32 = 0xa1b2_c3d4;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;
const SNAPLEN: u32 = 262_144;

/// One captured frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Capture time in microseconds since the epoch.
    pub ts_us: u64,
    /// Length on the wire (may exceed `data.len()` for truncated captures).
    pub orig_len: u32,
    pub data: Vec<u8>,
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// Reads records from a pcap stream.
pub struct Reader<R: Read> {
    inner: R,
    big_endian: bool,
    nanos: bool,
    offset: u64,
}

impl Reader<BufReader<File>> {
    /// Opens a pcap file; errors name the path.
    pub fn open(path: &Path) -> io::Result<Self> {
        let f = File::open(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Reader::new(BufReader::new(f)).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }
}

impl<R: Read> Reader<R> {
    /// Reads and checks the global header.
    pub fn new(mut inner: R) -> io::Result<Self> {
        let mut h = [0u8; 24];
        inner
            .read_exact(&mut h)
            .map_err(|_| bad("not a pcap file: shorter than the 24-byte header".into()))?;
        let le = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let be = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
        let (big_endian, nanos) = match (le, be) {
            (MAGIC_US, _) => (false, false),
            (MAGIC_NS, _) => (false, true),
            (_, MAGIC_US) => (true, false),
            (_, MAGIC_NS) => (true, true),
            _ => return Err(bad(format!("not a pcap file: bad magic {le:08x} (pcapng is not supported)"))),
        };
        let r = Reader { inner, big_endian, nanos, offset: 24 };
        let linktype = r.u32_at(&h, 20) & 0x0fff_ffff;
        if linktype != LINKTYPE_ETHERNET {
            return Err(bad(format!("pcap link type {linktype} is not Ethernet (1)")));
        }
        Ok(r)
    }

    fn u32_at(&self, b: &[u8], i: usize) -> u32 {
        let a = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        if self.big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    }

    /// The next record, `Ok(None)` at a clean end of file.
    pub fn next_record(&mut self) -> io::Result<Option<Record>> {
        let mut h = [0u8; 16];
        let mut got = 0;
        while got < h.len() {
            let n = self.inner.read(&mut h[got..])?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if got == 0 {
            return Ok(None);
        }
        if got < h.len() {
            return Err(bad(format!("truncated record header at offset {}", self.offset)));
        }
        let sec = self.u32_at(&h, 0) as u64;
        let frac = self.u32_at(&h, 4) as u64;
        let incl = self.u32_at(&h, 8);
        let orig_len = self.u32_at(&h, 12);
        if incl > SNAPLEN {
            return Err(bad(format!("record at offset {} claims {incl} bytes (more than {SNAPLEN})", self.offset)));
        }
        let mut data = vec![0u8; incl as usize];
        self.inner
            .read_exact(&mut data)
            .map_err(|_| bad(format!("truncated record at offset {}", self.offset)))?;
        self.offset += 16 + incl as u64;
        let ts_us = sec * 1_000_000 + if self.nanos { frac / 1000 } else { frac };
        Ok(Some(Record { ts_us, orig_len, data }))
    }

    /// All remaining records.
    pub fn read_all(mut self) -> io::Result<Vec<Record>> {
        let mut v = Vec::new();
        while let Some(r) = self.next_record()? {
            v.push(r);
        }
        Ok(v)
    }
}

/// Writes a pcap stream; buffered, flushed at least every 100 ms of writes and on drop.
pub struct Writer<W: Write> {
    inner: BufWriter<W>,
    last_flush: Instant,
}

impl Writer<File> {
    /// Creates (truncates) a pcap file; errors name the path.
    pub fn create(path: &Path) -> io::Result<Self> {
        let f = File::create(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Writer::new(f)
    }
}

impl<W: Write> Writer<W> {
    /// Writes the global header.
    pub fn new(inner: W) -> io::Result<Self> {
        let mut inner = BufWriter::with_capacity(1 << 16, inner);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_US.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        inner.write_all(&h)?;
        inner.flush()?;
        Ok(Writer { inner, last_flush: Instant::now() })
    }

    /// Appends one frame captured at `ts_us` microseconds since the epoch.
    pub fn write(&mut self, ts_us: u64, frame: &[u8]) -> io::Result<()> {
        let n = frame.len().min(SNAPLEN as usize);
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((ts_us / 1_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((ts_us % 1_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(n as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.inner.write_all(&h)?;
        self.inner.write_all(&frame[..n])?;
        if self.last_flush.elapsed().as_millis() >= 100 {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.last_flush = Instant::now();
        self.inner.flush()
    }
}

/// Microseconds since the epoch, for capture timestamps.
pub fn now_us() -> u64 {
    let (s, us) = crate::sys::now_timeval();
    s as u64 * 1_000_000 + us as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = Writer::new(Vec::new()).unwrap();
        w.write(1_500_000, &[1, 2, 3]).unwrap();
        w.write(2_000_001, &[0xaa; 60]).unwrap();
        w.inner.into_inner().map_err(|_| ()).unwrap()
    }

    #[test]
    fn round_trip() {
        let bytes = sample();
        assert_eq!(bytes.len(), 24 + 16 + 3 + 16 + 60);
        let recs = Reader::new(&bytes[..]).unwrap().read_all().unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0], Record { ts_us: 1_500_000, orig_len: 3, data: vec![1, 2, 3] });
        assert_eq!(recs[1].ts_us, 2_000_001);
        assert_eq!(recs[1].data, vec![0xaa; 60]);
    }

    #[test]
    fn big_endian_nanosecond_files_are_read() {
        let mut f = Vec::new();
        f.extend_from_slice(&MAGIC_NS.to_be_bytes());
        f.extend_from_slice(&[0, 2, 0, 4]);
        f.extend_from_slice(&[0; 8]);
        f.extend_from_slice(&65535u32.to_be_bytes());
        f.extend_from_slice(&1u32.to_be_bytes());
        f.extend_from_slice(&7u32.to_be_bytes());
        f.extend_from_slice(&5_000u32.to_be_bytes());
        f.extend_from_slice(&2u32.to_be_bytes());
        f.extend_from_slice(&2u32.to_be_bytes());
        f.extend_from_slice(&[9, 8]);
        let recs = Reader::new(&f[..]).unwrap().read_all().unwrap();
        assert_eq!(recs, vec![Record { ts_us: 7_000_005, orig_len: 2, data: vec![9, 8] }]);
    }

    #[test]
    fn malformed_files_are_errors_not_panics() {
        let good = sample();
        // Every truncation point: either a clean prefix of records or an error.
        for cut in 0..good.len() {
            match Reader::new(&good[..cut]) {
                Err(_) => assert!(cut < 24),
                Ok(r) => {
                    let res = r.read_all();
                    let clean = cut == 24 || cut == 24 + 19 || cut == good.len();
                    assert_eq!(res.is_ok(), clean, "cut at {cut}");
                }
            }
        }
        assert!(Reader::new(&[0u8; 24][..]).is_err());
        let mut huge = good[..24].to_vec();
        huge.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0]);
        let e = Reader::new(&huge[..]).unwrap().read_all().unwrap_err();
        assert!(e.to_string().contains("claims"), "{e}");
        let mut pcapng = good.clone();
        pcapng[..4].copy_from_slice(&[0x0a, 0x0d, 0x0d, 0x0a]);
        assert!(Reader::new(&pcapng[..]).err().unwrap().to_string().contains("pcapng"));
    }
}
