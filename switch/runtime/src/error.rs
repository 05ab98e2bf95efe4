//! Errors of the P4Runtime service and their gRPC encoding.
//!
//! Every failure inside the server is an [`RtError`]: a gRPC code and a
//! message. A Write in which any update fails is answered with UNKNOWN and a
//! `google.rpc.Status` whose details hold one `p4.v1.Error` per update, in
//! order, OK ones included (P4Runtime spec, "Error reporting").

use prost::Message;
use tonic::Code;

use crate::proto::google::rpc;
use crate::proto::p4::v1 as p4v1;

/// A gRPC status code with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtError {
    pub code: Code,
    pub message: String,
}

pub type RtResult<T> = Result<T, RtError>;

impl RtError {
    pub fn new(code: Code, message: impl Into<String>) -> RtError {
        RtError { code, message: message.into() }
    }
    pub fn invalid(message: impl Into<String>) -> RtError {
        RtError::new(Code::InvalidArgument, message)
    }
    pub fn not_found(message: impl Into<String>) -> RtError {
        RtError::new(Code::NotFound, message)
    }
    pub fn unimplemented(message: impl Into<String>) -> RtError {
        RtError::new(Code::Unimplemented, message)
    }
    pub fn permission(message: impl Into<String>) -> RtError {
        RtError::new(Code::PermissionDenied, message)
    }
    pub fn precondition(message: impl Into<String>) -> RtError {
        RtError::new(Code::FailedPrecondition, message)
    }
    /// A value outside its range: a byte string wider than its bit<W> or
    /// empty, an index past an array (P4Runtime spec, "Bytestrings": OUT_OF_RANGE).
    pub fn out_of_range(message: impl Into<String>) -> RtError {
        RtError::new(Code::OutOfRange, message)
    }
    /// `what` is not a valid bit<W> byte string.
    pub fn width(what: impl std::fmt::Display, e: crate::canonical::WidthError) -> RtError {
        RtError::out_of_range(format!("{what}: {e}"))
    }
    /// Prefixes the message with context (`table X: ...`).
    pub fn context(mut self, what: impl std::fmt::Display) -> RtError {
        self.message = format!("{what}: {}", self.message);
        self
    }
}

impl std::fmt::Display for RtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl From<p4engine::ApiError> for RtError {
    fn from(e: p4engine::ApiError) -> RtError {
        use p4engine::ApiError as E;
        match e {
            E::AlreadyExists(m) => RtError::new(Code::AlreadyExists, m),
            E::NotFound(m) => RtError::new(Code::NotFound, m),
            // A member or group that a table entry or group refers to and that
            // does not exist is NOT_FOUND (spec, "Action Profile Member and
            // Group Programming"); the engine calls it an invalid argument.
            E::InvalidArgument(m)
                if (m.starts_with("member ") || m.starts_with("group ")) && m.ends_with(" does not exist") =>
            {
                RtError::new(Code::NotFound, m)
            }
            E::InvalidArgument(m) => RtError::new(Code::InvalidArgument, m),
            E::ResourceExhausted(m) => RtError::new(Code::ResourceExhausted, m),
            E::PermissionDenied(m) => RtError::new(Code::PermissionDenied, m),
            E::Unimplemented(m) => RtError::new(Code::Unimplemented, m),
            E::FailedPrecondition(m) => RtError::new(Code::FailedPrecondition, m),
        }
    }
}

impl From<RtError> for tonic::Status {
    fn from(e: RtError) -> tonic::Status {
        tonic::Status::new(e.code, e.message)
    }
}

/// The `p4.v1.Error` of one update (`None` = the update succeeded).
pub fn p4_error(result: &Option<RtError>) -> p4v1::Error {
    match result {
        None => p4v1::Error { canonical_code: Code::Ok as i32, ..Default::default() },
        Some(e) => p4v1::Error {
            canonical_code: e.code as i32,
            message: e.message.clone(),
            space: String::new(),
            code: 0,
            details: None,
        },
    }
}

/// The error of every update a stopping switch skipped.
pub fn skipped() -> RtError {
    RtError::new(Code::Unavailable, "switch shutting down: not applied")
}

/// The answer to a batch whose updates got `results`, followed by `skipped`
/// updates a stop cut off (each [`skipped()`], not applied): `None` when
/// every update succeeded, else UNKNOWN with a `google.rpc.Status` holding one
/// `p4.v1.Error` per update in its details. The skipped updates' details are
/// one encoded `Any` repeated (a repeated field is its entries one after the
/// other), not one error built and encoded per update: a Write cut after a
/// few of its 400,000 updates answers in milliseconds, not a second.
pub fn batch_status(results: &[Option<RtError>], skipped_n: usize) -> Option<tonic::Status> {
    let failed = results.iter().filter(|r| r.is_some()).count() + skipped_n;
    if failed == 0 {
        return None;
    }
    let any = |r: &Option<RtError>| prost_types::Any {
        type_url: "type.googleapis.com/p4.v1.Error".into(),
        value: p4_error(r).encode_to_vec(),
    };
    let cut = skipped();
    let first = results.iter().flatten().next().unwrap_or(&cut).message.as_str();
    let st = rpc::Status {
        code: Code::Unknown as i32,
        message: format!("{failed} of {} updates failed (first: {first})", results.len() + skipped_n),
        details: results.iter().map(any).collect(),
    };
    let mut bytes = st.encode_to_vec();
    if skipped_n > 0 {
        let mut one = Vec::new();
        prost::encoding::message::encode(3, &any(&Some(cut)), &mut one); // rpc::Status.details = 3
        bytes.reserve(one.len() * skipped_n);
        for _ in 0..skipped_n {
            bytes.extend_from_slice(&one);
        }
    }
    Some(tonic::Status::with_details(Code::Unknown, st.message, bytes.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_map_onto_grpc_codes() {
        use p4engine::ApiError as E;
        let cases = [
            (E::AlreadyExists("x".into()), Code::AlreadyExists),
            (E::NotFound("x".into()), Code::NotFound),
            (E::InvalidArgument("x".into()), Code::InvalidArgument),
            (E::ResourceExhausted("x".into()), Code::ResourceExhausted),
            (E::PermissionDenied("x".into()), Code::PermissionDenied),
            (E::Unimplemented("x".into()), Code::Unimplemented),
            (E::FailedPrecondition("x".into()), Code::FailedPrecondition),
        ];
        for (e, code) in cases {
            assert_eq!(RtError::from(e).code, code);
        }
    }

    #[test]
    fn all_ok_batch_has_no_status() {
        assert!(batch_status(&[None, None], 0).is_none());
        assert!(batch_status(&[], 0).is_none());
    }

    fn details(t: &tonic::Status) -> (rpc::Status, Vec<p4v1::Error>) {
        let st = rpc::Status::decode(t.details()).unwrap();
        assert!(st.details.iter().all(|a| a.type_url == "type.googleapis.com/p4.v1.Error"));
        let errs = st.details.iter().map(|a| p4v1::Error::decode(a.value.as_slice()).unwrap()).collect();
        (st, errs)
    }

    #[test]
    fn failed_batch_lists_every_update_in_order() {
        let results = vec![None, Some(RtError::new(Code::AlreadyExists, "dup")), None];
        let t = batch_status(&results, 0).expect("status");
        assert_eq!(t.code(), Code::Unknown);
        let (st, errs) = details(&t);
        assert_eq!((st.code, st.message.as_str()), (Code::Unknown as i32, "1 of 3 updates failed (first: dup)"));
        assert_eq!(errs.len(), 3);
        assert_eq!(errs[0].canonical_code, 0);
        assert_eq!(errs[1].canonical_code, Code::AlreadyExists as i32);
        assert_eq!(errs[1].message, "dup");
        assert_eq!(errs[2].canonical_code, 0);
    }

    /// The updates a stop skipped are listed after the others, each UNAVAILABLE,
    /// as if every one had been built on its own.
    #[test]
    fn skipped_updates_follow_in_order_each_unavailable() {
        let results = vec![None, Some(RtError::new(Code::NotFound, "gone"))];
        let t = batch_status(&results, 3).expect("status");
        let (st, errs) = details(&t);
        assert_eq!(st.message, "4 of 5 updates failed (first: gone)");
        assert_eq!(errs.len(), 5);
        assert_eq!(errs[..2], [p4_error(&None), p4_error(&results[1])]);
        assert!(errs[2..].iter().all(|e| *e == p4_error(&Some(skipped()))), "{errs:?}");
        // byte for byte what one error per skipped update would give
        let each: Vec<Option<RtError>> = results.iter().cloned().chain(std::iter::repeat_n(Some(skipped()), 3)).collect();
        assert_eq!(t.details(), batch_status(&each, 0).unwrap().details());
        // only skipped updates: the message names the stop
        let (st, errs) = details(&batch_status(&[], 2).unwrap());
        assert_eq!(st.message, "2 of 2 updates failed (first: switch shutting down: not applied)");
        assert_eq!(errs.len(), 2);
    }

    /// CPU time of answering a Write a stop cut after 1,636 of 400,000
    /// updates (as in tests/shutdown.rs), one error per skipped update vs
    /// the shared one. `cargo test --release -p p4runtime-server --lib --
    /// --ignored --nocapture cut_write_answer`.
    #[test]
    #[ignore]
    fn cut_write_answer_cpu() {
        fn cpu_ns() -> u64 {
            let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
            s.split_whitespace().next().unwrap().parse().unwrap()
        }
        let (applied, total) = (1_636, 400_000);
        for round in 0..3 {
            let t0 = cpu_ns();
            let mut each: Vec<Option<RtError>> = vec![None; applied];
            each.extend((applied..total).map(|_| Some(skipped())));
            let old = batch_status(&each, 0).unwrap();
            drop(each);
            let t1 = cpu_ns();
            let new = batch_status(&vec![None; applied], total - applied).unwrap();
            let t2 = cpu_ns();
            assert_eq!(old.details(), new.details());
            eprintln!(
                "round {round}: one error per skipped update {:.1} ms CPU, shared {:.1} ms CPU ({} bytes of details)",
                (t1 - t0) as f64 / 1e6,
                (t2 - t1) as f64 / 1e6,
                new.details().len()
            );
        }
    }
}
