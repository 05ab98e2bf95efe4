//! Issue 17 Must 1, end to end: digests the data plane raises during a
//! learning storm while a controller's bulk Write applies. The real binary on
//! veth ports in network namespaces, a controller over real gRPC. Needs root.
//!
//! The storm program raises many digests per frame (a storm frame, EtherType
//! 0x88b5, raises one and is multicast to two copies that recirculate, up to
//! the engine's limit of jobs per frame: 1,369). The server's `p4rt-events`
//! thread takes them from the engine's queue (65,536). That thread used to
//! run the idle-timeout sweep too, which waits for the lock a Write holds
//! once entries have expired: during a 400,000-entry Write no digest was
//! taken and the queue overflowed (320,453 of 685,869 lost). The sweep now
//! has its own thread:
//!
//! * a controller that reads its stream gets DigestLists all through the
//!   Write (no pause over MAX_GAP) and every digest raised, with none lost to
//!   the queue; each expired entry is still reported once;
//! * one that does not read its stream (and configured no digest) does not
//!   slow the drain either (stream messages beyond 4,096 are dropped, never
//!   waited for): every digest is taken or counted, and the admin service's
//!   GetDigests (`unconfigured`, `queue_overflow`) and the metrics
//!   (`p4switch_p4runtime_digest_drops_total{reason=...}`) agree.
//!
//! What is left to overflow the queue is a data plane that raises digests
//! faster than that thread takes them: in-process one worker raised 0.77 M
//! storm digests/s, the thread took 4.6 M/s unconfigured and 1.3 M/s as one
//! DigestList each (load ~6, 2 cores), so no honest set-up here overflows it
//! and the overflow count itself is checked where the queue lives (the
//! engine's `digest_queue_tests`).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::netns::*;
use common::hosts::*;
use common::*;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::stream_message_response::Update as Out;
use p4switch::admin::{DigestReply, GetDigestsRequest};
use p4switch::sys::{PacketSocket, SocketOptions};
use serde_json::json;

const A: [u8; 6] = [0x02, 0, 0, 0, 0, 0xaa];
const B: [u8; 6] = [0x02, 0, 0, 0, 0, 0xbb];
/// Entries of the bulk Write (a second or more of the server's time).
const BULK: u32 = 400_000;
/// `hosts` entries with idle timeouts, 100 ms apart, written before the bulk
/// Write: some run out while it applies (what used to hold digests up).
const IDLE_HOSTS: u32 = 20;
/// Longest the flow of DigestLists may pause while the bulk Write applies
/// (lists are due every 5 ms; the Write takes seconds).
const MAX_GAP: Duration = Duration::from_millis(300);

/// The tests here each run a storm against a bulk Write on two cores: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Ports 1 <-> 2 (const entries), then `hosts` (exact dst MAC, NoAction,
/// idle timeout; written by the controller, never hit). Storm frames learn
/// and flood to group 1, whose copies recirculate with
/// `srcAddr = 2 * srcAddr + egress_rid`: each digest has its own data.
fn storm_prog() -> serde_json::Value {
    let mut p = Prog::new();
    let src = || fld("ethernet", "srcAddr");
    let storm = || ex("==", fld("ethernet", "etherType"), hexv("0x88b5"));
    p.action("MyIngress.forward", &[("port", 9)], vec![assign(fld("standard_metadata", "egress_spec"), rd(0))]);
    p.action("MyIngress.drop", &[], vec![mark_to_drop()]);
    p.action(
        "MyIngress.learn_and_flood",
        &[],
        vec![
            prim("generate_digest", vec![hexv("0x1"), hexv("0x1")]),
            assign(fld("standard_metadata", "mcast_grp"), hexv("0x0001")),
        ],
    );
    p.action(
        "MyEgress.again",
        &[],
        vec![
            assign(src(), add_w(add_w(src(), src(), 48), fld("standard_metadata", "egress_rid"), 48)),
            prim("recirculate", vec![hexv("0x1")]),
        ],
    );
    p.j["field_lists"] = json!([{"id": 1, "name": "empty", "elements": []}]);
    p.j["learn_lists"] = json!([{"id": 1, "name": "learn_t", "elements": [src()]}]);
    p.conditional(0, "node_storm", storm(), Some("MyIngress.t_learn"), Some("MyIngress.xconnect"));
    p.keyless(0, "MyIngress.t_learn", "MyIngress.learn_and_flood", vec![], None);
    xconnect_table(&mut p, Some("MyIngress.hosts"));
    p.table(0, "MyIngress.hosts", &[("exact", "ethernet", "dstAddr")], &["NoAction"], ("NoAction", vec![], false), vec![], json!({"NoAction": null}), None);
    let hosts = p.j["pipelines"][0]["tables"].as_array_mut().unwrap().last_mut().unwrap();
    hosts["support_timeout"] = json!(true);
    hosts["max_size"] = json!(1 << 20);
    p.init(0, "node_storm");
    p.conditional(1, "node_again", storm(), Some("MyEgress.t_again"), None);
    p.keyless(1, "MyEgress.t_again", "MyEgress.again", vec![], None);
    p.init(1, "node_again");
    p.j
}

fn insert(entity: p4v1::entity::Entity) -> p4v1::Update {
    p4v1::Update { r#type: p4v1::update::Type::Insert as i32, entity: Some(p4v1::Entity { entity: Some(entity) }) }
}

fn replica(port: u32, instance: u32) -> p4v1::Replica {
    p4v1::Replica { instance, backup_replicas: vec![], port_kind: Some(p4v1::replica::PortKind::Port(port.to_be_bytes().to_vec())) }
}

/// As a controller: primary; the pipeline (the switch's program with the
/// P4Info); multicast group 1 = two copies to port 2 (rid 0 and 1).
async fn primary(addr: &str, json: String) -> p4rt::Primary {
    let mut primary = p4rt::Primary::with_pipeline(addr, hosts_p4info(true), json.into_bytes()).await;
    let group = p4v1::PacketReplicationEngineEntry {
        r#type: Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(p4v1::MulticastGroupEntry {
            multicast_group_id: 1,
            replicas: vec![replica(2, 0), replica(2, 1)],
            ..Default::default()
        })),
    };
    let group = insert(p4v1::entity::Entity::PacketReplicationEngineEntry(group));
    primary.client.write(p4rt::write(vec![group])).await.expect("multicast group");
    primary
}

/// The bulk Write: BULK `hosts` entries without idle timeout.
fn bulk() -> p4v1::WriteRequest {
    p4rt::write((1000..1000 + BULK).map(|i| host(i, 0)).collect())
}

/// As a controller that does not read its stream: [`primary`]; 100 `hosts`
/// entries whose idle timeouts (100 ms apart) run out one after the other;
/// then `storm` is told to start, and the bulk Write follows. No
/// DigestEntry: the digest stays unconfigured, so every digest the server
/// takes is counted as such. Answers how long the bulk Write took.
async fn controller(addr: String, json: String, storm: mpsc::Sender<()>) -> Duration {
    let mut primary = primary(&addr, json).await;
    let c = &mut primary.client;
    let bulk = bulk();
    c.write(p4rt::write((0..100).map(|i| host(i, 100_000_000 * (i as i64 + 1))).collect())).await.expect("hosts with idle timeouts");
    storm.send(()).expect("storm");
    let t0 = Instant::now();
    c.write(bulk).await.expect("bulk write");
    let took = t0.elapsed();
    drop(primary);
    took
}

/// What the reading controller saw.
struct Seen {
    /// The bulk Write's span, in the clock of DigestList time stamps (ns since the epoch).
    write: (i64, i64),
    /// DigestLists: (time stamp, digest data in it).
    lists: Vec<(i64, usize)>,
    /// The match values of the entries in IdleTimeoutNotifications, once per notification.
    idle: Vec<Vec<u8>>,
}

fn wall_ns() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as i64
}

/// As a controller that reads its stream: [`primary`]; the digest configured
/// (a list every 5 ms, no size limit, no ack timeout: every digest is sent);
/// IDLE_HOSTS entries with idle timeouts; then `storm` is told to start and
/// the bulk Write follows, while the stream is read. Once the Write has
/// answered the storm is stopped; reading goes on until the DigestLists have
/// been quiet for a second and every idle entry was reported.
async fn reading_controller(addr: String, json: String, storm: mpsc::Sender<()>, stop: Arc<AtomicBool>) -> Seen {
    let mut primary = primary(&addr, json).await;
    let p4rt::Primary { client, stream, .. } = &mut primary;
    let config = p4v1::digest_entry::Config { max_timeout_ns: 5_000_000, max_list_size: 0, ack_timeout_ns: 0 };
    let digest = p4v1::DigestEntry { digest_id: LEARN, config: Some(config) };
    client.write(p4rt::write(vec![insert(p4v1::entity::Entity::DigestEntry(digest))])).await.expect("digest entry");
    let idle_hosts = (0..IDLE_HOSTS).map(|i| host(i, 100_000_000 * (i as i64 + 1))).collect();
    client.write(p4rt::write(idle_hosts)).await.expect("hosts with idle timeouts");
    let bulk = bulk();
    let done = std::cell::Cell::new(false);
    storm.send(()).expect("storm");
    let writing = async {
        let t0 = wall_ns();
        client.write(bulk).await.expect("bulk write");
        let span = (t0, wall_ns());
        stop.store(true, Ordering::Relaxed);
        done.set(true);
        span
    };
    let reading = async {
        let (mut lists, mut idle) = (Vec::new(), Vec::new());
        let mut last_list = Instant::now();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(done.get() && last_list.elapsed() > Duration::from_secs(1) && idle.len() >= IDLE_HOSTS as usize)
            && Instant::now() < deadline
        {
            let Ok(m) = tokio::time::timeout(Duration::from_millis(100), stream.message()).await else { continue };
            match m.expect("stream").expect("the stream stays open").update {
                Some(Out::Digest(l)) => {
                    lists.push((l.timestamp, l.data.len()));
                    last_list = Instant::now();
                }
                Some(Out::IdleTimeoutNotification(n)) => {
                    for e in n.table_entry {
                        match e.r#match[0].field_match_type.as_ref() {
                            Some(p4v1::field_match::FieldMatchType::Exact(x)) => idle.push(x.value.clone()),
                            other => panic!("hosts is an exact table: {other:?}"),
                        }
                    }
                }
                _ => {}
            }
        }
        (lists, idle)
    };
    let (write, (lists, idle)) = tokio::join!(writing, reading);
    Seen { write, lists, idle }
}

/// GetDigests of the admin service of the switch in namespace `ns`.
fn digests(ns: &str, addr: &str) -> DigestReply {
    let (ns, addr) = (ns.to_string(), addr.to_string());
    std::thread::spawn(move || {
        runtime_in(&ns).block_on(async move {
            let ch = tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.expect("connect");
            let mut g = tonic::client::Grpc::new(ch);
            g.ready().await.expect("ready");
            let path = tonic::codegen::http::uri::PathAndQuery::from_static("/p4switch.admin.v1.Admin/GetDigests");
            let codec = tonic::codec::ProstCodec::<GetDigestsRequest, DigestReply>::default();
            g.unary(tonic::Request::new(GetDigestsRequest { device_id: 0 }), path, codec).await.expect("GetDigests").into_inner()
        })
    })
    .join()
    .unwrap()
}

/// The value of the sample `name{labels}` (labels as written in the text).
fn sample(text: &str, name_and_labels: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name_and_labels)?.strip_prefix(' ')?.trim().parse().ok())
}

fn storm_frame() -> Vec<u8> {
    eth(B, [0, 0, 0, 0, 0, 1], 0x88b5, b"learn me")
}

/// Sends a storm frame from host a every `every`, from `go` until `stop`;
/// answers how many.
fn storm(topo: &Topo, every: Duration, go: mpsc::Receiver<()>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let (ns, dev) = (topo.ns("a"), topo.dev("a0"));
    std::thread::spawn(move || {
        p4switch::sys::enter_netns(&ns).unwrap();
        let mut s = PacketSocket::open(&dev, &SocketOptions::sender(None)).unwrap();
        if go.recv().is_err() {
            return 0;
        }
        let (f, mut sent) = (storm_frame(), 0);
        while !stop.load(Ordering::Relaxed) {
            s.send(&f).unwrap();
            sent += 1;
            std::thread::sleep(every);
        }
        sent
    })
}

/// The P4Runtime address and the metrics address in a ready line.
fn addrs(line: &str) -> (String, String) {
    let addr = line.rsplit("P4Runtime on ").next().unwrap().trim().to_string();
    let maddr = line.split("metrics on http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_else(|| panic!("{line}")).to_string();
    (addr, maddr)
}

/// Digests one storm frame raises: the same program in the engine in-process.
fn digests_per_storm_frame(prog: &serde_json::Value) -> u64 {
    let sw = p4engine::Switch::new(p4engine::SwitchConfig::default());
    sw.set_program(p4engine::load_program(&prog.to_string()).expect("program loads"));
    let replicas = vec![p4engine::Replica { egress_port: 2, rid: 0 }, p4engine::Replica { egress_port: 2, rid: 1 }];
    sw.mc_group_create(p4engine::MulticastGroup { group_id: 1, replicas }).unwrap();
    let mut w = sw.new_worker();
    sw.process(&mut w, 1, &storm_frame(), &mut |_, _| {});
    let n = sw.take_digests(usize::MAX).len() as u64 + sw.digests_overflowed();
    assert!(n > 1000, "the storm program multiplies digests: {n}");
    n
}

#[test]
fn every_digest_raised_during_a_bulk_write_is_taken_or_counted_and_forwarding_goes_on() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let prog = storm_prog();
    let per_frame = digests_per_storm_frame(&prog);
    let topo = Topo::new("dq");
    let dir = TempDir::new("digest-overflow");
    let (mut sw, line) = topo.start_switch(
        &dir.0,
        &prog,
        // No delay bound: a storm frame keeps the worker ~1.8 ms (1,369 digests), so the next ones
        // wait past it by design; this test is about digests, not about time in the queues.
        &["--workers", "1", "--metrics-addr", "127.0.0.1:0", "--queue-delay", "0"],
        &["--grpc-server-addr", "127.0.0.1:0"],
    );
    let (addr, maddr) = addrs(&line);
    let ns = topo.ns("s");

    // the storm: a storm frame every 3 ms from host a, from just before the
    // bulk Write until it has answered
    let (go_tx, go_rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let storm = storm(&topo, Duration::from_millis(3), go_rx, stop.clone());
    let bulk = {
        let (ns, addr, json) = (ns.clone(), addr.clone(), prog.to_string());
        std::thread::spawn(move || runtime_in(&ns).block_on(controller(addr, json, go_tx))).join().unwrap()
    };
    stop.store(true, Ordering::Relaxed);
    let frames = storm.join().unwrap();

    // every digest raised is either taken by the server (and, with no
    // DigestEntry, dropped as unconfigured) or lost to the full queue
    let raised = frames * per_frame;
    let deadline = Instant::now() + Duration::from_secs(60);
    let after = loop {
        let d = digests(&ns, &addr);
        if d.unconfigured + d.queue_overflow >= raised || Instant::now() > deadline {
            break d;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    eprintln!(
        "bulk Write of {BULK} entries took {bulk:?}; {frames} storm frames raised {raised} digests \
         ({per_frame} each): {} taken by the server, {} lost to the full queue",
        after.unconfigured, after.queue_overflow
    );
    assert_eq!(after.unconfigured + after.queue_overflow, raised, "every digest is taken or counted: {after:?}");
    assert_eq!((after.sent, after.lists, after.rate_dropped, after.suppressed), (0, 0, 0, 0), "{after:?}");

    // the metrics say the same
    let text = metrics_in(&ns, &maddr);
    let drops = |reason: &str| sample(&text, &format!(r#"p4switch_p4runtime_digest_drops_total{{reason="{reason}"}}"#));
    assert_eq!(drops("queue"), Some(after.queue_overflow as f64), "{text}");
    assert_eq!(drops("unconfigured"), Some(after.unconfigured as f64), "{text}");

    // and the switch still forwards, every frame
    let rx = receiver(topo.ns("b"), topo.dev("b0"), Duration::from_millis(1500));
    let plain: Vec<Vec<u8>> = (0..100u8).map(|i| eth(B, A, 0x0800, &[i; 32])).collect();
    send(topo.ns("a"), topo.dev("a0"), plain.clone(), 10, Duration::from_millis(1));
    let got: Vec<Vec<u8>> = from(A, rx.join().unwrap()).into_iter().map(|g| g.frame).collect();
    assert_eq!(got, plain);
    assert_eq!(digests(&ns, &addr).queue_overflow, after.queue_overflow, "plain frames raise no digest");

    assert!(std::process::Command::new("kill").args(["-TERM", &sw.0.id().to_string()]).status().unwrap().success());
    assert!(sw.0.wait().unwrap().success());
}

#[test]
fn digests_keep_reaching_the_controller_while_a_bulk_write_applies() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let prog = storm_prog();
    let per_frame = digests_per_storm_frame(&prog);
    let topo = Topo::new("df");
    let dir = TempDir::new("digest-flow");
    let (mut sw, line) = topo.start_switch(
        &dir.0,
        &prog,
        // No delay bound: a storm frame keeps the worker ~1.8 ms (1,369 digests), so the next ones
        // wait past it by design; this test is about digests, not about time in the queues.
        &["--workers", "1", "--metrics-addr", "127.0.0.1:0", "--queue-delay", "0"],
        &["--grpc-server-addr", "127.0.0.1:0", "--max-digest-rate", "0"],
    );
    let (addr, _) = addrs(&line);
    let ns = topo.ns("s");

    // a storm frame every 10 ms (~140,000 digests/s, a second's worth is
    // twice the engine's queue) from just before the bulk Write until it
    // has answered
    let (go_tx, go_rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let storm = storm(&topo, Duration::from_millis(10), go_rx, stop.clone());
    let seen = {
        let (ns, addr, json) = (ns.clone(), addr.clone(), prog.to_string());
        std::thread::spawn(move || runtime_in(&ns).block_on(reading_controller(addr, json, go_tx, stop))).join().unwrap()
    };
    let frames = storm.join().unwrap();
    let raised = frames * per_frame;

    // DigestLists were sent all through the Write
    let (t0, t1) = seen.write;
    let mut during: Vec<i64> = seen.lists.iter().map(|l| l.0).filter(|ts| (t0..=t1).contains(ts)).collect();
    during.sort_unstable();
    let edges: Vec<i64> = std::iter::once(t0).chain(during.iter().copied()).chain(std::iter::once(t1)).collect();
    let gap = Duration::from_nanos(edges.windows(2).map(|w| w[1] - w[0]).max().unwrap() as u64);
    let took = Duration::from_nanos((t1 - t0) as u64);
    let received: u64 = seen.lists.iter().map(|l| l.1 as u64).sum();
    eprintln!(
        "bulk Write of {BULK} entries took {took:?}; {frames} storm frames raised {raised} digests ({per_frame} each); \
         {} DigestLists ({} during the Write, longest pause {gap:?}) carried {received}",
        seen.lists.len(),
        during.len()
    );
    assert!(took > 3 * MAX_GAP, "the Write is long enough to tell a pause from the lists' rhythm: {took:?}");
    assert!(gap < MAX_GAP, "digests paused {gap:?} while the Write applied ({took:?})");

    // and none was lost: the controller got every digest raised, the queue never overflowed
    let d = digests(&ns, &addr);
    assert_eq!(d.queue_overflow, 0, "{d:?}");
    assert_eq!((d.sent, d.rate_dropped, d.suppressed, d.unconfigured), (raised, 0, 0, 0), "{d:?}");
    assert_eq!(received, raised, "{d:?}");

    // the idle sweep, which waits such a Write out, still reports each expired entry once
    let mut idle = seen.idle;
    idle.sort();
    let want: Vec<Vec<u8>> = (0..IDLE_HOSTS).map(|i| [vec![0x06, 0], i.to_be_bytes().to_vec()].concat()).collect();
    assert_eq!(idle, want, "one notification per idle entry");

    assert!(std::process::Command::new("kill").args(["-TERM", &sw.0.id().to_string()]).status().unwrap().success());
    assert!(sw.0.wait().unwrap().success());
}

