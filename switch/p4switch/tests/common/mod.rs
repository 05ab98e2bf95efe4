//! Helpers of the integration tests: BMv2 JSON programs in the shape p4c's
//! BMv2 back end emits them, packet builders, and a runner that starts the real
//! `p4switch` binary with pcap-file ports (`--use-files 0`) and returns what it
//! wrote on each port.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use p4switch::pcap;

pub mod hosts;
pub mod netns;
pub mod p4rt;

// ---------------------------------------------------------------- a running switch

/// A switch process killed (if still running) when dropped, so a failing test
/// leaves no switch behind.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Running {
    /// Starts `cmd` with its stdout piped and returns it with its first line
    /// (p4switch's ready line).
    pub fn start(cmd: &mut Command) -> (Running, String) {
        let mut sw = Running(cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("start p4switch"));
        let mut line = String::new();
        BufReader::new(sw.0.stdout.take().expect("stdout")).read_line(&mut line).expect("ready line");
        (sw, line)
    }
}

// ---------------------------------------------------------------- JSON pieces

/// `{"type": "field", "value": [header, field]}`
pub fn fld(h: &str, f: &str) -> Value {
    json!({"type": "field", "value": [h, f]})
}
/// `{"type": "hexstr", "value": ...}`
pub fn hexv(v: &str) -> Value {
    json!({"type": "hexstr", "value": v})
}
/// An action parameter.
pub fn rd(i: u32) -> Value {
    json!({"type": "runtime_data", "value": i})
}
/// An expression node `{"type": "expression", "value": {op, left, right}}`.
pub fn ex(op: &str, left: Value, right: Value) -> Value {
    json!({"type": "expression", "value": {"op": op, "left": left, "right": right}})
}
/// `hdr.isValid()` as p4c writes it in conditionals.
pub fn is_valid(h: &str) -> Value {
    ex("d2b", Value::Null, fld(h, "$valid$"))
}
/// A primitive call; an expression parameter gets the second
/// `{"type": "expression"}` level BMv2 (and so p4switch) wants around it.
pub fn prim(op: &str, params: Vec<Value>) -> Value {
    let single = |p: &Value| p["type"] == "expression" && p["value"].get("op").is_some();
    let wrap = |p: Value| if single(&p) { json!({"type": "expression", "value": p}) } else { p };
    json!({"op": op, "parameters": params.into_iter().map(wrap).collect::<Vec<_>>()})
}
/// `dst = src`.
pub fn assign(dst: Value, src: Value) -> Value {
    prim("assign", vec![dst, src])
}
/// `mark_to_drop(standard_metadata)`.
pub fn mark_to_drop() -> Value {
    prim("mark_to_drop", vec![json!({"type": "header", "value": "standard_metadata"})])
}
/// `standard_metadata.egress_spec = port`.
pub fn set_port(port: u32) -> Value {
    assign(fld("standard_metadata", "egress_spec"), hexv(&format!("0x{port:04x}")))
}

/// `(x + y) & mask` — p4c's form of `bit<W>` addition.
pub fn add_w(x: Value, y: Value, width: u32) -> Value {
    let mask = if width >= 128 { "0x".to_string() + &"f".repeat(width as usize / 4) } else { format!("0x{:x}", (1u128 << width) - 1) };
    ex("&", ex("+", x, y), hexv(&mask))
}

fn std_meta_fields() -> Value {
    json!([
        ["ingress_port", 9, false], ["egress_spec", 9, false], ["egress_port", 9, false],
        ["instance_type", 32, false], ["packet_length", 32, false], ["enq_timestamp", 32, false],
        ["enq_qdepth", 19, false], ["deq_timedelta", 32, false], ["deq_qdepth", 19, false],
        ["ingress_global_timestamp", 48, false], ["egress_global_timestamp", 48, false],
        ["mcast_grp", 16, false], ["egress_rid", 16, false], ["checksum_error", 1, false],
        ["parser_error", 32, false], ["priority", 3, false], ["_padding", 3, false]
    ])
}

/// A program under construction.
pub struct Prog {
    pub j: Value,
}

impl Prog {
    /// scalars + standard_metadata + ethernet; the parser extracts ethernet and
    /// accepts; the deparser emits ethernet; actions: NoAction (id 0);
    /// empty ingress and egress.
    pub fn new() -> Prog {
        let j = json!({
            "header_types": [
                {"name": "scalars_0", "id": 0, "fields": []},
                {"name": "standard_metadata", "id": 1, "fields": std_meta_fields()},
                {"name": "ethernet_t", "id": 2, "fields": [["dstAddr", 48, false], ["srcAddr", 48, false], ["etherType", 16, false]]}
            ],
            "headers": [
                {"name": "scalars", "id": 0, "header_type": "scalars_0", "metadata": true, "pi_omit": true},
                {"name": "standard_metadata", "id": 1, "header_type": "standard_metadata", "metadata": true, "pi_omit": true},
                {"name": "ethernet", "id": 2, "header_type": "ethernet_t", "metadata": false, "pi_omit": true}
            ],
            "header_stacks": [],
            "header_union_types": [],
            "header_unions": [],
            "header_union_stacks": [],
            "field_lists": [],
            "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2], ["StackOutOfBounds", 3],
                       ["HeaderTooShort", 4], ["ParserTimeout", 5], ["ParserInvalidArgument", 6]],
            "enums": [],
            "parsers": [{
                "name": "parser", "id": 0, "init_state": "start",
                "parse_states": [{
                    "name": "start", "id": 0,
                    "parser_ops": [{"parameters": [{"type": "regular", "value": "ethernet"}], "op": "extract"}],
                    "transitions": [{"type": "default", "value": null, "mask": null, "next_state": null}],
                    "transition_key": []
                }]
            }],
            "parse_vsets": [],
            "deparsers": [{"name": "deparser", "id": 0, "order": ["ethernet"], "primitives": []}],
            "meter_arrays": [],
            "counter_arrays": [],
            "register_arrays": [],
            "calculations": [],
            "learn_lists": [],
            "actions": [{"name": "NoAction", "id": 0, "runtime_data": [], "primitives": []}],
            "pipelines": [
                {"name": "ingress", "id": 0, "init_table": null, "tables": [], "action_profiles": [], "conditionals": []},
                {"name": "egress", "id": 1, "init_table": null, "tables": [], "action_profiles": [], "conditionals": []}
            ],
            "checksums": [],
            "force_arith": [],
            "extern_instances": [],
            "field_aliases": [
                ["queueing_metadata.enq_timestamp", ["standard_metadata", "enq_timestamp"]],
                ["queueing_metadata.enq_qdepth", ["standard_metadata", "enq_qdepth"]],
                ["queueing_metadata.deq_timedelta", ["standard_metadata", "deq_timedelta"]],
                ["queueing_metadata.deq_qdepth", ["standard_metadata", "deq_qdepth"]],
                ["intrinsic_metadata.ingress_global_timestamp", ["standard_metadata", "ingress_global_timestamp"]],
                ["intrinsic_metadata.egress_global_timestamp", ["standard_metadata", "egress_global_timestamp"]],
                ["intrinsic_metadata.mcast_grp", ["standard_metadata", "mcast_grp"]],
                ["intrinsic_metadata.egress_rid", ["standard_metadata", "egress_rid"]],
                ["intrinsic_metadata.priority", ["standard_metadata", "priority"]]
            ],
            "program": "test.p4",
            "__meta__": {"version": [2, 23], "compiler": "hand-written in p4c's shape"}
        });
        Prog { j }
    }

    fn arr(&mut self, key: &str) -> &mut Vec<Value> {
        self.j[key].as_array_mut().expect("array")
    }

    /// Adds a header type and returns its id.
    pub fn header_type(&mut self, name: &str, fields: &[(&str, u32)]) -> u64 {
        let id = self.arr("header_types").len() as u64;
        let f: Vec<Value> = fields.iter().map(|(n, w)| json!([n, w, false])).collect();
        self.arr("header_types").push(json!({"name": name, "id": id, "fields": f}));
        id
    }
    /// Adds a header (or metadata) instance and returns its id.
    pub fn header(&mut self, name: &str, ty: &str, metadata: bool) -> u64 {
        let id = self.arr("headers").len() as u64;
        self.arr("headers").push(json!({"name": name, "id": id, "header_type": ty, "metadata": metadata, "pi_omit": true}));
        id
    }
    /// Fields of the `scalars` metadata header.
    pub fn scalars(&mut self, fields: &[(&str, u32)]) {
        let f: Vec<Value> = fields.iter().map(|(n, w)| json!([n, w, false])).collect();
        self.j["header_types"][0]["fields"] = Value::Array(f);
    }
    pub fn parse_states(&mut self, states: Vec<Value>) {
        self.j["parsers"][0]["parse_states"] = Value::Array(states);
    }
    pub fn deparser(&mut self, order: &[&str]) {
        self.j["deparsers"][0]["order"] = json!(order);
    }
    /// Adds an action and returns its id.
    pub fn action(&mut self, name: &str, params: &[(&str, u32)], prims: Vec<Value>) -> u64 {
        let id = self.arr("actions").len() as u64;
        let rdv: Vec<Value> = params.iter().map(|(n, w)| json!({"name": n, "bitwidth": w})).collect();
        self.arr("actions").push(json!({"name": name, "id": id, "runtime_data": rdv, "primitives": prims}));
        id
    }
    fn action_id(&self, name: &str) -> u64 {
        self.j["actions"].as_array().expect("actions").iter().find(|a| a["name"] == name).expect("action")["id"]
            .as_u64()
            .expect("id")
    }
    /// Adds a table to pipeline `pipe` (0 ingress, 1 egress).
    /// `keys`: (match_type, header, field); `entries`: (match_key JSON, action, data, priority).
    #[allow(clippy::too_many_arguments)]
    pub fn table(
        &mut self,
        pipe: usize,
        name: &str,
        keys: &[(&str, &str, &str)],
        actions: &[&str],
        default: (&str, Vec<&str>, bool),
        entries: Vec<(Value, &str, Vec<&str>, u32)>,
        next: Value,
        base_default_next: Option<&str>,
    ) {
        let id = self.j["pipelines"][pipe]["tables"].as_array().map(|a| a.len()).unwrap_or(0);
        let key: Vec<Value> = keys
            .iter()
            .map(|(mt, h, f)| json!({"match_type": mt, "name": format!("{h}.{f}"), "target": [h, f], "mask": null}))
            .collect();
        let mt = if keys.iter().any(|k| k.0 == "range") {
            "range"
        } else if keys.iter().any(|k| k.0 == "ternary" || k.0 == "optional") {
            "ternary"
        } else if keys.iter().any(|k| k.0 == "lpm") {
            "lpm"
        } else {
            "exact"
        };
        let ids: Vec<u64> = actions.iter().map(|a| self.action_id(a)).collect();
        let ents: Vec<Value> = entries
            .into_iter()
            .map(|(mk, a, data, prio)| {
                json!({"match_key": mk, "action_entry": {"action_id": self.action_id(a), "action_data": data}, "priority": prio})
            })
            .collect();
        let mut t = json!({
            "name": name, "id": id, "key": key, "match_type": mt, "type": "simple", "max_size": 1024,
            "with_counters": false, "support_timeout": false, "direct_meters": null,
            "action_ids": ids, "actions": actions,
            "base_default_next": base_default_next,
            "next_tables": next,
            "default_entry": {"action_id": self.action_id(default.0), "action_const": default.2,
                              "action_data": default.1, "action_entry_const": default.2}
        });
        if !ents.is_empty() {
            t["entries"] = Value::Array(ents);
        }
        self.j["pipelines"][pipe]["tables"].as_array_mut().expect("tables").push(t);
    }
    /// A table without keys whose (const) default action is `action(data)`.
    pub fn keyless(&mut self, pipe: usize, name: &str, action: &str, data: Vec<&str>, next: Option<&str>) {
        self.table(pipe, name, &[], &[action], (action, data, true), vec![], json!({ action: next }), next);
    }
    pub fn conditional(&mut self, pipe: usize, name: &str, expr: Value, t: Option<&str>, f: Option<&str>) {
        let c = &mut self.j["pipelines"][pipe]["conditionals"];
        let id = c.as_array().map(|a| a.len()).unwrap_or(0);
        c.as_array_mut()
            .expect("conditionals")
            .push(json!({"name": name, "id": id, "expression": expr, "true_next": t, "false_next": f}));
    }
    pub fn init(&mut self, pipe: usize, first: &str) {
        self.j["pipelines"][pipe]["init_table"] = json!(first);
    }
}

/// A parser state. `transitions`: (value or None for default, mask, next state).
pub fn state(name: &str, id: u64, ops: Vec<Value>, key: Vec<Value>, transitions: Vec<(Option<&str>, Option<&str>, Option<&str>)>) -> Value {
    let tr: Vec<Value> = transitions
        .into_iter()
        .map(|(v, m, n)| match v {
            Some(v) => json!({"type": "hexstr", "value": v, "mask": m, "next_state": n}),
            None => json!({"type": "default", "value": null, "mask": null, "next_state": n}),
        })
        .collect();
    json!({"name": name, "id": id, "parser_ops": ops, "transitions": tr, "transition_key": key})
}

/// `extract(hdr)`.
pub fn extract(h: &str) -> Value {
    json!({"parameters": [{"type": "regular", "value": h}], "op": "extract"})
}

// ---------------------------------------------------------------- packets

/// Bytes from hex text (spaces ignored).
pub fn hx(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

pub fn mac(last: u8) -> [u8; 6] {
    [0, 0, 0, 0, 0, last]
}

/// An Ethernet frame padded to 60 bytes.
pub fn eth(dst: [u8; 6], src: [u8; 6], ty: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ty.to_be_bytes());
    f.extend_from_slice(payload);
    while f.len() < 60 {
        f.push(0);
    }
    f
}

/// The Internet checksum of `b`.
pub fn csum(b: &[u8]) -> u16 {
    let mut acc: u32 = 0;
    for c in b.chunks(2) {
        acc += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// A 20-byte IPv4 header with a correct checksum, followed by `payload`.
pub fn ipv4(src: [u8; 4], dst: [u8; 4], ttl: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![0x45, 0, 0, 0, 0, 1, 0, 0, ttl, 17, 0, 0];
    let total = (20 + payload.len()) as u16;
    h[2..4].copy_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let c = csum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h.extend_from_slice(payload);
    h
}

// ---------------------------------------------------------------- running

/// A scratch directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("h3-p4switch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one run of the switch produced.
pub struct RunResult {
    pub out: BTreeMap<u32, Vec<Vec<u8>>>,
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

pub fn switch_bin() -> &'static str {
    env!("CARGO_BIN_EXE_p4switch")
}

/// Runs `cmd` to completion, killing it (and failing the test) after 30 s.
pub fn output_within(cmd: &mut Command) -> std::process::Output {
    use std::io::Read;
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start p4switch");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("p4switch did not exit within 30 s: {cmd:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    std::process::Output { status, stdout: t_out.join().unwrap_or_default(), stderr: t_err.join().unwrap_or_default() }
}

fn write_inputs(dir: &Path, ports: &[u32], packets: &[(u32, Vec<u8>)]) {
    let mut writers: BTreeMap<u32, pcap::Writer<std::fs::File>> = ports
        .iter()
        .map(|&p| (p, pcap::Writer::create(&dir.join(format!("p{p}_in.pcap"))).expect("pcap")))
        .collect();
    for (i, (p, frame)) in packets.iter().enumerate() {
        let w = writers.get_mut(p).expect("packet on a port not in the list");
        w.write(1_700_000_000_000_000 + i as u64 * 1000, frame).expect("write");
    }
    for w in writers.values_mut() {
        w.flush().expect("flush");
    }
}

/// Runs `p4switch --use-files 0 -i P@pP... prog.json [extra...]` in a scratch
/// directory with `packets` (in this order) and returns each port's output.
pub fn run_with(name: &str, prog: &Value, ports: &[u32], packets: &[(u32, Vec<u8>)], extra: &[&str]) -> RunResult {
    let dir = TempDir::new(name);
    std::fs::write(dir.0.join("prog.json"), serde_json::to_string_pretty(prog).expect("json")).expect("write json");
    write_inputs(&dir.0, ports, packets);
    let mut cmd = Command::new(switch_bin());
    cmd.current_dir(&dir.0).arg("--use-files").arg("0");
    for p in ports {
        cmd.arg("-i").arg(format!("{p}@p{p}"));
    }
    cmd.arg("prog.json");
    let mut target: Vec<&str> = vec!["--no-grpc"];
    let mut rest = Vec::new();
    let mut after = false;
    for a in extra {
        if *a == "--" {
            after = true;
        } else if after {
            target.push(a);
        } else {
            rest.push(*a);
        }
    }
    cmd.args(&rest).arg("--").args(&target);
    let o = output_within(&mut cmd);
    let mut out = BTreeMap::new();
    for &p in ports {
        let path = dir.0.join(format!("p{p}_out.pcap"));
        let frames = match pcap::Reader::open(&path) {
            Ok(r) => r.read_all().expect("read output").into_iter().map(|r| r.data).collect(),
            Err(_) => Vec::new(),
        };
        out.insert(p, frames);
    }
    RunResult {
        out,
        status: o.status,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Runs and checks the switch exited 0; returns the outputs per port.
pub fn run(name: &str, prog: &Value, ports: &[u32], packets: &[(u32, Vec<u8>)]) -> BTreeMap<u32, Vec<Vec<u8>>> {
    let r = run_with(name, prog, ports, packets, &[]);
    assert!(r.status.success(), "p4switch failed: {}\n{}", r.status, r.stderr);
    r.out
}

/// Asserts every port's output: `want` lists (port, frames); ports not listed must be silent.
pub fn expect(out: &BTreeMap<u32, Vec<Vec<u8>>>, want: &[(u32, Vec<Vec<u8>>)]) {
    for (port, frames) in out {
        let w = want.iter().find(|(p, _)| p == port).map(|(_, f)| f.clone()).unwrap_or_default();
        let show = |v: &Vec<Vec<u8>>| v.iter().map(|f| f.iter().map(|b| format!("{b:02x}")).collect::<String>()).collect::<Vec<_>>();
        assert_eq!(show(frames), show(&w), "output of port {port}");
    }
}
