//! The fixture's learning path: a frame to dst 01:.. from `src` is sent by
//! `t_exact` to the `learn` action, which raises a digest of its source.

use p4runtime_server::proto::p4::v1 as p4v1;
use p4v1::entity::Entity as E;
use p4v1::update::Type;

use super::client::*;
use super::fixture;

/// An Ethernet frame to 01:01:01:01:01:01 from `src` (as 4 bytes).
pub fn frame(src: u32) -> Vec<u8> {
    let mut f = vec![1u8; 6];
    f.extend_from_slice(&[0x02, 0]);
    f.extend_from_slice(&src.to_be_bytes());
    f.extend_from_slice(&0x1234u16.to_be_bytes());
    f.extend_from_slice(&[0u8; 46]);
    f
}

/// The pipeline, the digest configured with `cfg`, and `t_exact` sending dst 01:.. to `learn`.
pub async fn learning(c: &mut Conn, cfg: p4v1::digest_entry::Config) {
    c.set_pipeline(fixture::JSON, fixture::p4info()).await.expect("pipeline");
    let de = E::DigestEntry(p4v1::DigestEntry { digest_id: fixture::D_DIGEST, config: Some(cfg) });
    c.write(vec![update(Type::Insert, de)]).await.unwrap();
    c.write(vec![update(Type::Insert, entry(fixture::T_EXACT, vec![exact(&[1; 6])], action(fixture::A_LEARN, &[]), 0))])
        .await
        .unwrap();
}
