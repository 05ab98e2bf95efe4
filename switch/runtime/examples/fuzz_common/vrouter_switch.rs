//! vrouter.p4 as the controller configures it: the one set-up of the packet
//! fuzzers (the `fuzz_frames` example and the engine's libFuzzer `process`
//! target include this file). A port-less switch serves P4Runtime on
//! loopback and `vrouter apply` configures it from the full example
//! description of docs/controller.md (VLANs, access and trunk ports, static
//! MACs, ACL, policers, LSPs, VPLS), with the program `make build-p4` writes
//! (build/vrouter.json, build/vrouter.p4info.txtpb).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use p4engine::{Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::{spawn, ServerHandle, ServerOptions};

/// The repository root (this file is switch/runtime/examples/fuzz_common/).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().find(|d| d.join("p4src/vrouter.p4").exists())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The switch, its server (keep it alive while the controller may talk) and
/// how many table entries the controller wrote. `Err` says what is missing.
pub fn vrouter_switch(root: &Path, cpu_port: u32) -> Result<(Arc<Switch>, ServerHandle, usize), String> {
    let (json, p4info) = (root.join("build/vrouter.json"), root.join("build/vrouter.p4info.txtpb"));
    for f in [&json, &p4info] {
        if !f.exists() {
            return Err(format!("{} is missing: run `make build-p4` first", f.display()));
        }
    }
    let vrouter = root.join(".venv/bin/vrouter");
    if !vrouter.exists() {
        return Err(format!("{} is missing: run `make setup` first", vrouter.display()));
    }
    let switch = Arc::new(Switch::new(SwitchConfig { cpu_port: Some(cpu_port), ..Default::default() }));
    let tx = Arc::new(|_: u32, _: &[u8]| {});
    let server = spawn(ServerOptions { addr: "127.0.0.1:0".into(), ..Default::default() }, switch.clone(), tx)
        .map_err(|e| e.to_string())?;
    let net = std::env::temp_dir().join(format!("fuzz-vrouter-{}.yaml", std::process::id()));
    let text = description(root, &server.local_addr().to_string(), &p4info, &json)?;
    std::fs::write(&net, text).map_err(|e| format!("{}: {e}", net.display()))?;
    let applied = std::process::Command::new(&vrouter).arg("apply").arg(&net).env("PYTHONPATH", "").output();
    let _ = std::fs::remove_file(&net);
    let applied = applied.map_err(|e| format!("{}: {e}", vrouter.display()))?;
    let stdout = String::from_utf8_lossy(&applied.stdout);
    if !applied.status.success() || !stdout.contains("wrote") {
        return Err(format!("vrouter apply failed:\n{stdout}{}", String::from_utf8_lossy(&applied.stderr)));
    }
    eprintln!("{}", stdout.trim());
    let dev = server.device().clone();
    let all = p4v1::Entity { entity: Some(p4v1::entity::Entity::TableEntry(p4v1::TableEntry::default())) };
    let entries = dev
        .read(&p4v1::ReadRequest { device_id: dev.device_id(), entities: vec![all], ..Default::default() })
        .map_err(|e| format!("no pipeline loaded by the controller: {e}"))?
        .len();
    Ok((switch, server, entries))
}

/// The first yaml block of docs/controller.md, pointed at this switch and program.
fn description(root: &Path, address: &str, p4info: &Path, json: &Path) -> Result<String, String> {
    let docs = std::fs::read_to_string(root.join("docs/controller.md")).map_err(|e| e.to_string())?;
    let mut block = docs
        .split_once("```yaml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(b, _)| b.to_string())
        .ok_or("docs/controller.md has no yaml block")?;
    let p4info = p4info.display().to_string();
    let json = json.display().to_string();
    for (old, new) in [("127.0.0.1:9559", address), ("../build/vrouter.p4info.txtpb", &p4info),
                       ("../build/vrouter.json", &json)] {
        if !block.contains(old) {
            return Err(format!("docs/controller.md's first yaml block lost {old:?}"));
        }
        block = block.replace(old, new);
    }
    Ok(block)
}
