//! TLS and mutual TLS (`--grpc-server-ssl`, `--grpc-server-with-client-auth`)
//! with the test certificates in tests/fixtures/tls.

use std::path::PathBuf;
use std::sync::Arc;

use p4engine::{Switch, SwitchConfig};
use p4runtime_server::proto::p4::v1 as p4v1;
use p4runtime_server::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4runtime_server::{spawn, ServerOptions, TlsOptions};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls").join(name)
}

fn pem(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).expect("fixture")
}

fn server(client_auth: bool) -> p4runtime_server::ServerHandle {
    let tls = TlsOptions {
        cert: fixture("server.pem"),
        key: fixture("server.key"),
        ca_cert: Some(fixture("ca.pem")),
        client_auth,
    };
    let opts = ServerOptions { addr: "127.0.0.1:0".into(), tls: Some(tls), ..Default::default() };
    spawn(opts, Arc::new(Switch::new(SwitchConfig::default())), Arc::new(|_: u32, _: &[u8]| {})).expect("server")
}

async fn capabilities(addr: std::net::SocketAddr, with_client_cert: bool) -> Result<String, String> {
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem("ca.pem"))).domain_name("localhost");
    if with_client_cert {
        tls = tls.identity(Identity::from_pem(pem("client.pem"), pem("client.key")));
    }
    let channel = Channel::from_shared(format!("https://{addr}"))
        .map_err(|e| e.to_string())?
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    P4RuntimeClient::new(channel)
        .capabilities(p4v1::CapabilitiesRequest { device_id: 0 })
        .await
        .map(|r| r.into_inner().p4runtime_api_version)
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_server_answers_over_tls_only() {
    let s = server(false);
    let v = capabilities(s.local_addr(), false).await.expect("TLS without client certificate");
    assert!(v.starts_with("1."));
    // a plaintext client gets nothing
    let plain = P4RuntimeClient::connect(format!("http://{}", s.local_addr())).await;
    if let Ok(mut c) = plain {
        assert!(c.capabilities(p4v1::CapabilitiesRequest { device_id: 0 }).await.is_err());
    }
    s.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_auth_requires_a_certificate_signed_by_the_ca() {
    let s = server(true);
    assert!(capabilities(s.local_addr(), true).await.is_ok(), "client with certificate");
    assert!(capabilities(s.local_addr(), false).await.is_err(), "client without certificate");
    s.shutdown();
}

#[test]
fn bad_tls_files_are_a_clear_error() {
    let tls = TlsOptions { cert: fixture("missing.pem"), key: fixture("server.key"), ca_cert: None, client_auth: false };
    let opts = ServerOptions { addr: "127.0.0.1:0".into(), tls: Some(tls), ..Default::default() };
    let e = spawn(opts, Arc::new(Switch::new(SwitchConfig::default())), Arc::new(|_: u32, _: &[u8]| {})).err().expect("error");
    assert!(e.to_string().contains("missing.pem"), "{e}");
    let tls = TlsOptions { cert: fixture("server.pem"), key: fixture("server.key"), ca_cert: None, client_auth: true };
    let opts = ServerOptions { addr: "127.0.0.1:0".into(), tls: Some(tls), ..Default::default() };
    let e = spawn(opts, Arc::new(Switch::new(SwitchConfig::default())), Arc::new(|_: u32, _: &[u8]| {})).err().expect("error");
    assert!(e.to_string().contains("cacert"), "{e}");
}
