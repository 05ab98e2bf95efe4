//! Command-line options of all subcommands (`--key value` pairs), checked once.

use p4switch::sys;

/// Frames of one trial are numbered with a `u32`.
pub const MAX_FRAMES: u64 = u32::MAX as u64;

#[derive(Clone, Debug)]
pub struct Opts {
    pub tx_ns: Option<String>,
    pub tx: String,
    pub rx_ns: Option<String>,
    pub rx: String,
    /// Frames per second of `trial` and `pace` (and where `search` starts from the top).
    pub rate: f64,
    pub seconds: f64,
    /// Frame size without the FCS.
    pub size: usize,
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub lo: u64,
    pub hi: u64,
    pub precision: f64,
    /// `burst`: frames in the burst.
    pub frames: Option<u64>,
    /// `burst`: space frames at this line rate (Mb/s) instead of sending as fast as possible.
    pub line_mbps: Option<f64>,
    /// How batches reach the kernel (see [`crate::transmit`]).
    pub tx_mode: TxMode,
}

/// `--tx-mode`: UDP segmentation super-frames, `sendmmsg`, or GSO where it works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxMode {
    Auto,
    Gso,
    Sendmmsg,
}

pub const USAGE: &str = "\
usage: p4gen trial  --tx-ns NS --tx IF --rx-ns NS --rx IF --rate PPS [--seconds S] [frame options]
       p4gen search --tx-ns NS --tx IF --rx-ns NS --rx IF [--lo PPS] [--hi PPS] [--seconds S] [--precision F]
       p4gen burst  --tx-ns NS --tx IF --rx-ns NS --rx IF --frames N [--line-mbps M] [frame options]
       p4gen pace   --tx-ns NS --tx IF --rx-ns NS --rx IF --rate PPS [--seconds S] [frame options]
frame options: --size BYTES (without FCS, 60..9216; default 60 = a 64-byte frame)
               --dst-mac MAC --src-mac MAC --src-ip A.B.C.D --dst-ip A.B.C.D
               --tx-mode auto|gso|sendmmsg (default auto: one UDP GSO buffer per batch
               when the transmit interface's checksum offload is off, else sendmmsg)";

fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("bad MAC {s:?}"));
    }
    let mut m = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        m[i] = u8::from_str_radix(p, 16).map_err(|_| format!("bad MAC {s:?}"))?;
    }
    Ok(m)
}

fn parse_ip(s: &str) -> Result<[u8; 4], String> {
    let a: std::net::Ipv4Addr = s.parse().map_err(|_| format!("bad IPv4 address {s:?}"))?;
    Ok(a.octets())
}

/// Options from `args` (after the subcommand), or a message naming the bad one.
pub fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        tx_ns: None,
        tx: String::new(),
        rx_ns: None,
        rx: String::new(),
        rate: 100_000.0,
        seconds: 2.0,
        size: 60,
        dst_mac: [0x02, 0, 0, 0, 0, 0x02],
        src_mac: [0x02, 0, 0, 0, 0, 0x01],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 1, 2],
        lo: 0,
        hi: 3_000_000,
        precision: 0.02,
        frames: None,
        line_mbps: None,
        tx_mode: TxMode::Auto,
    };
    let mut i = 0;
    while i < args.len() {
        let k = args[i].as_str();
        let v = args.get(i + 1).ok_or_else(|| format!("{k} needs a value"))?.clone();
        let num = |v: &str| match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(format!("{k}: expected a non-negative number, got {v:?}")),
        };
        match k {
            "--tx-ns" => o.tx_ns = Some(v),
            "--rx-ns" => o.rx_ns = Some(v),
            "--tx" => o.tx = v,
            "--rx" => o.rx = v,
            "--rate" => o.rate = num(&v)?,
            "--seconds" => o.seconds = num(&v)?,
            "--size" => o.size = num(&v)? as usize,
            "--dst-mac" => o.dst_mac = parse_mac(&v)?,
            "--src-mac" => o.src_mac = parse_mac(&v)?,
            "--src-ip" => o.src_ip = parse_ip(&v)?,
            "--dst-ip" => o.dst_ip = parse_ip(&v)?,
            "--lo" => o.lo = num(&v)? as u64,
            "--hi" => o.hi = num(&v)? as u64,
            "--precision" => o.precision = num(&v)?,
            "--frames" => o.frames = Some(num(&v)? as u64),
            "--line-mbps" => o.line_mbps = Some(num(&v)?),
            "--tx-mode" => {
                o.tx_mode = match v.as_str() {
                    "auto" => TxMode::Auto,
                    "gso" => TxMode::Gso,
                    "sendmmsg" => TxMode::Sendmmsg,
                    _ => return Err(format!("--tx-mode {v:?}: expected auto, gso or sendmmsg")),
                }
            }
            _ => return Err(format!("unknown option {k}")),
        }
        i += 2;
    }
    if o.tx.is_empty() || o.rx.is_empty() {
        return Err("--tx and --rx are required".into());
    }
    if o.size < 60 || o.size > sys::MAX_FRAME {
        return Err(format!("--size {}: expected 60..{}", o.size, sys::MAX_FRAME));
    }
    if o.rate < 1.0 || o.seconds <= 0.0 {
        return Err("--rate (at least 1) and --seconds must be positive".into());
    }
    if o.rate * o.seconds > MAX_FRAMES as f64 {
        return Err(format!("--rate × --seconds is more than {MAX_FRAMES} frames"));
    }
    if let Some(n) = o.frames {
        if n == 0 || n > MAX_FRAMES {
            return Err(format!("--frames {n}: expected 1..{MAX_FRAMES}"));
        }
    }
    if o.line_mbps == Some(0.0) {
        return Err("--line-mbps must be positive".into());
    }
    if o.hi < o.lo || o.hi == 0 {
        return Err(format!("--lo {} / --hi {}: expected 0 <= lo <= hi, hi > 0", o.lo, o.hi));
    }
    Ok(o)
}

impl Opts {
    /// Frames per second at the line rate `--line-mbps` (each frame takes its
    /// size, 4 bytes of FCS and 20 of preamble and inter-frame gap on the wire).
    pub fn line_rate_pps(&self) -> Option<f64> {
        self.line_mbps.map(|m| m * 1e6 / ((self.size + 4 + 20) as f64 * 8.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults_and_values() {
        let o = parse(&args("--tx a0 --rx b0 --rate 1e6 --seconds 10 --dst-mac 02:aa:00:00:00:01")).unwrap();
        assert_eq!((o.rate, o.seconds, o.size), (1e6, 10.0, 60));
        assert_eq!(o.dst_mac, [2, 0xaa, 0, 0, 0, 1]);
        assert_eq!(o.tx_mode, TxMode::Auto);
        assert_eq!(parse(&args("--tx a --rx b --tx-mode sendmmsg")).unwrap().tx_mode, TxMode::Sendmmsg);
    }

    #[test]
    fn line_rate_counts_fcs_preamble_and_gap() {
        let o = parse(&args("--tx a --rx b --frames 10 --line-mbps 1000")).unwrap();
        assert!((o.line_rate_pps().unwrap() - 1_488_095.24).abs() < 0.01);
        let j = parse(&args("--tx a --rx b --frames 10 --line-mbps 1000 --size 1514")).unwrap();
        assert!((j.line_rate_pps().unwrap() - 81_274.38).abs() < 0.01);
    }

    #[test]
    fn bad_options_are_named() {
        for (a, want) in [
            ("--tx a", "--tx and --rx"),
            ("--tx a --rx b --size 59", "--size 59"),
            ("--tx a --rx b --size 10000", "--size 10000"),
            ("--tx a --rx b --rate x", "--rate"),
            ("--tx a --rx b --rate nan", "--rate"),
            ("--tx a --rx b --rate -5", "--rate"),
            ("--tx a --rx b --rate 0", "--rate"),
            ("--tx a --rx b --frames 0", "--frames"),
            ("--tx a --rx b --rate 1e9 --seconds 10", "frames"),
            ("--tx a --rx b --line-mbps 0", "--line-mbps"),
            ("--tx a --rx b --bogus 1", "unknown option --bogus"),
            ("--tx a --rx", "--rx needs a value"),
            ("--tx a --rx b --dst-mac 1:2:3", "bad MAC"),
            ("--tx a --rx b --src-ip 300.1.1.1", "bad IPv4"),
            ("--tx a --rx b --tx-mode fast", "--tx-mode \"fast\""),
        ] {
            let e = parse(&args(a)).unwrap_err();
            assert!(e.contains(want), "{a}: {e}");
        }
    }
}
