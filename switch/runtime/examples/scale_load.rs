//! Loads N IPv4 routes into a running switch's `ipv4_route` table over real
//! gRPC, in batches, and prints the insert rate: the server half of
//! `make bench-scale` (switch/runtime/bench/scale.py starts p4switch with
//! vrouter.p4 and reads its memory before and after).
//!
//!     cargo run --release -p p4runtime-server --example scale_load -- \
//!         --addr 127.0.0.1:9559 [--routes 1000000] [--batch 1000] [--election 100]
//!
//! The table, action and field ids come from the switch's P4Info
//! (GetForwardingPipelineConfig), found by name. Route i is the /24
//! 16.0.0.0 + i*256 (distinct for i < 2^20... 2^28) to next hop 1 + i % 4000.
//! The client prepares every batch before it starts the clock, so the rate
//! is the server's (decode, check, insert, answer) plus loopback gRPC.

#[path = "../tests/common/client.rs"]
mod client;

use std::time::Instant;

use client::*;
use p4runtime_server::proto::p4::config::v1 as cfg;
use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::update::Type;

struct Ids {
    table: u32,
    field: u32,
    action: u32,
    param: u32,
}

fn find_ids(p4info: &cfg::P4Info) -> Ids {
    let named = |p: &Option<cfg::Preamble>, suffix: &str| p.as_ref().is_some_and(|p| p.name.ends_with(suffix));
    let t = p4info.tables.iter().find(|t| named(&t.preamble, "ipv4_route")).expect("P4Info has no table *ipv4_route");
    let a = p4info.actions.iter().find(|a| named(&a.preamble, "route_to_nexthop")).expect("P4Info has no action *route_to_nexthop");
    Ids {
        table: t.preamble.as_ref().unwrap().id,
        field: t.match_fields[0].id,
        action: a.preamble.as_ref().unwrap().id,
        param: a.params[0].id,
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    match args.iter().position(|a| a == name) {
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name}: needs a number")),
        None => default,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr: std::net::SocketAddr = args
        .iter()
        .position(|a| a == "--addr")
        .and_then(|i| args.get(i + 1))
        .expect("--addr HOST:PORT")
        .parse()
        .expect("--addr: HOST:PORT");
    let routes: u32 = arg(&args, "--routes", 1_000_000);
    let batch: u32 = arg(&args, "--batch", 1000);
    let election_id: u64 = arg(&args, "--election", 100);

    let mut client = connect(addr).await;
    let (_to_switch, _from_switch, a) = open_stream(&mut client, election_id).await;
    assert_eq!(a.status.map(|s| s.code), Some(0), "not primary (another controller connected?)");
    let got = client
        .get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest {
            device_id: 0,
            response_type: p4v1::get_forwarding_pipeline_config_request::ResponseType::P4infoAndCookie as i32,
        })
        .await
        .expect("GetForwardingPipelineConfig")
        .into_inner();
    let p4info = got.config.and_then(|c| c.p4info).expect("the switch has no pipeline");
    let ids = find_ids(&p4info);

    let batches: Vec<Vec<p4v1::Update>> = (0..routes)
        .step_by(batch as usize)
        .map(|start| {
            (start..(start + batch).min(routes))
                .map(|i| {
                    let prefix = (16u32 << 24) + (i << 8);
                    let nh = (1 + i % 4000) as u16;
                    let m = p4v1::FieldMatch {
                        field_id: ids.field,
                        field_match_type: Some(p4v1::field_match::FieldMatchType::Lpm(p4v1::field_match::Lpm {
                            value: prefix.to_be_bytes().to_vec(),
                            prefix_len: 24,
                        })),
                    };
                    let action = p4v1::TableAction {
                        r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                            action_id: ids.action,
                            params: vec![p4v1::action::Param { param_id: ids.param, value: nh.to_be_bytes().to_vec() }],
                        })),
                    };
                    let e = p4v1::TableEntry { table_id: ids.table, r#match: vec![m], action: Some(action), ..Default::default() };
                    update(Type::Insert, p4v1::entity::Entity::TableEntry(e))
                })
                .collect()
        })
        .collect();

    let t0 = Instant::now();
    let mut done = 0u32;
    let mut mark = (t0, 0u32);
    let step = (routes / 10).max(batch);
    for updates in batches {
        let n = updates.len() as u32;
        let req = p4v1::WriteRequest { device_id: 0, election_id: election(election_id), updates, ..Default::default() };
        if let Err(e) = client.write(req).await {
            eprintln!("write failed after {done} routes: {} {}", e.code(), e.message());
            std::process::exit(1);
        }
        done += n;
        if done / step != (done - n) / step || done == routes {
            let now = Instant::now();
            let rate = (done - mark.1) as f64 / now.duration_since(mark.0).as_secs_f64();
            println!("progress {done} routes, {rate:.0} entries/s over the last {}", done - mark.1);
            mark = (now, done);
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    println!("loaded {routes} routes in batches of {batch} in {secs:.2} s: {:.0} entries/s", routes as f64 / secs);
}
