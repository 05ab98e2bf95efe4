//! Generates the P4Runtime protobuf types and the tonic service.
//!
//! The schema comes from the descriptors shipped inside the pinned Python
//! packages (`p4runtime`, `googleapis-common-protos`) in the project's venv,
//! never from hand-copied .proto text: `tools/descriptors.py` writes a
//! FileDescriptorSet, which prost/tonic compile without running protoc.
//! The interpreter is `$P4SWITCH_PYTHON`, default `../../.venv/bin/python`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    if let Err(msg) = run() {
        eprintln!("error: {msg}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let python = match std::env::var_os("P4SWITCH_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => manifest.join("../../.venv/bin/python"),
    };
    let script = manifest.join("tools/descriptors.py");
    println!("cargo:rerun-if-env-changed=P4SWITCH_PYTHON");
    println!("cargo:rerun-if-changed=tools/descriptors.py");
    println!("cargo:rerun-if-changed=build.rs");
    if !python.exists() {
        return Err(format!(
            "p4runtime-server needs the project's Python venv for the P4Runtime descriptors, \
             but {} does not exist: run `make setup` (or set P4SWITCH_PYTHON to a python \
             with the pinned p4runtime and googleapis-common-protos packages)",
            python.display()
        ));
    }
    let fds_path = out_dir.join("p4runtime_fds.bin");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&fds_path)
        .arg(out_dir.join("p4runtime_version.txt"))
        .env("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
        .output()
        .map_err(|e| format!("cannot run {}: {e} (run `make setup`)", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} {} failed (run `make setup`): {}",
            python.display(),
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let bytes = std::fs::read(&fds_path).map_err(|e| format!("{}: {e}", fds_path.display()))?;
    let fds = <prost_types::FileDescriptorSet as prost::Message>::decode(bytes.as_slice())
        .map_err(|e| format!("{}: not a FileDescriptorSet: {e}", fds_path.display()))?;
    tonic_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)
        .map_err(|e| format!("generating P4Runtime code from {}: {e}", fds_path.display()))?;
    Ok(())
}
