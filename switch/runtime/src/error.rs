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

/// The `google.rpc.Status` answering a batch whose per-update results are
/// `results`: `None` when every update succeeded, else UNKNOWN with one
/// `p4.v1.Error` per update in the details.
pub fn batch_status(results: &[Option<RtError>]) -> Option<rpc::Status> {
    let failed = results.iter().filter(|r| r.is_some()).count();
    if failed == 0 {
        return None;
    }
    let details = results
        .iter()
        .map(|r| prost_types::Any {
            type_url: "type.googleapis.com/p4.v1.Error".into(),
            value: p4_error(r).encode_to_vec(),
        })
        .collect();
    let first = results.iter().flatten().next().map(|e| e.message.as_str()).unwrap_or("");
    Some(rpc::Status {
        code: Code::Unknown as i32,
        message: format!("{failed} of {} updates failed (first: {first})", results.len()),
        details,
    })
}

/// The tonic status carrying `status` (its details in `grpc-status-details-bin`).
pub fn to_tonic(status: rpc::Status) -> tonic::Status {
    let code = Code::from_i32(status.code);
    let message = status.message.clone();
    tonic::Status::with_details(code, message, status.encode_to_vec().into())
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
        assert!(batch_status(&[None, None]).is_none());
        assert!(batch_status(&[]).is_none());
    }

    #[test]
    fn failed_batch_lists_every_update_in_order() {
        let results = vec![None, Some(RtError::new(Code::AlreadyExists, "dup")), None];
        let st = batch_status(&results).expect("status");
        assert_eq!(st.code, Code::Unknown as i32);
        assert_eq!(st.details.len(), 3);
        let errs: Vec<p4v1::Error> =
            st.details.iter().map(|a| p4v1::Error::decode(a.value.as_slice()).unwrap()).collect();
        assert_eq!(errs[0].canonical_code, 0);
        assert_eq!(errs[1].canonical_code, Code::AlreadyExists as i32);
        assert_eq!(errs[1].message, "dup");
        assert_eq!(errs[2].canonical_code, 0);
        assert!(st.details.iter().all(|a| a.type_url == "type.googleapis.com/p4.v1.Error"));
        // survives the trip through tonic's status details
        let t = to_tonic(st.clone());
        assert_eq!(t.code(), Code::Unknown);
        assert_eq!(rpc::Status::decode(t.details()).unwrap(), st);
    }
}
