//! Shared by the integration tests and the benchmark example.

pub mod client;
pub mod fixture;
#[allow(dead_code)] // only the digest tests learn
pub mod learn;
pub mod rng;

/// A connection that has loaded the fixture program (`fixture::JSON`).
#[allow(dead_code)] // shared by the test binaries; not every one uses it
pub async fn loaded() -> client::Conn {
    let mut c = client::start().await;
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    c
}
