//! Controller arbitration (P4Runtime spec, "Client Arbitration and Controller
//! Replication"), as a plain state machine over stream ids.
//!
//! Controllers are grouped by (device id, role). Among the connected streams
//! of a group the one with the highest election id is the primary; the others
//! are backups. When the primary changes (a higher election id arrives, or the
//! primary's stream closes) every stream of the group is told; otherwise only
//! the stream that sent the arbitration request gets an answer. Only the
//! primary may write.

use std::collections::HashMap;

use tonic::Code;

use crate::error::{RtError, RtResult};

/// Role key: the role name, `""` for the default (full-access) role.
pub type RoleKey = String;

/// The role key of a request that carries a role name and a (deprecated) role id.
pub fn role_key(name: &str, id: u64) -> RoleKey {
    if !name.is_empty() {
        name.to_string()
    } else if id != 0 {
        format!("#{id}")
    } else {
        String::new()
    }
}

/// What to tell one stream after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub stream: u64,
    pub device_id: u64,
    pub role: RoleKey,
    /// Election id of the primary (None when there is no primary).
    pub primary_election_id: Option<u128>,
    /// OK for the primary, ALREADY_EXISTS for a backup when there is a
    /// primary, NOT_FOUND when there is none.
    pub code: Code,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ctrl {
    stream: u64,
    election_id: Option<u128>,
}

#[derive(Debug, Default)]
pub struct Arbitration {
    groups: HashMap<(u64, RoleKey), Vec<Ctrl>>,
    streams: HashMap<u64, (u64, RoleKey)>,
}

impl Arbitration {
    pub fn new() -> Arbitration {
        Arbitration::default()
    }

    fn primary_of(ctrls: &[Ctrl]) -> Option<Ctrl> {
        ctrls.iter().filter(|c| c.election_id.is_some()).max_by_key(|c| c.election_id).copied()
    }

    /// The primary stream and its election id for (device, role).
    pub fn primary(&self, device_id: u64, role: &str) -> Option<(u64, u128)> {
        let ctrls = self.groups.get(&(device_id, role.to_string()))?;
        Self::primary_of(ctrls).and_then(|c| c.election_id.map(|e| (c.stream, e)))
    }

    /// Streams that are primary of some role on `device_id` (receivers of
    /// packet-in, digests and idle-timeout notifications).
    pub fn primary_streams(&self, device_id: u64) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .groups
            .iter()
            .filter(|((d, _), _)| *d == device_id)
            .filter_map(|(_, ctrls)| Self::primary_of(ctrls).map(|c| c.stream))
            .collect();
        v.sort_unstable();
        v
    }

    fn notice(device_id: u64, role: &RoleKey, primary: Option<Ctrl>, to: u64) -> Notice {
        let code = match primary {
            Some(p) if p.stream == to => Code::Ok,
            Some(_) => Code::AlreadyExists,
            None => Code::NotFound,
        };
        Notice {
            stream: to,
            device_id,
            role: role.clone(),
            primary_election_id: primary.and_then(|p| p.election_id),
            code,
        }
    }

    /// Handles a MasterArbitrationUpdate from `stream`. `server_device_id` is
    /// the id of this switch.
    pub fn arbitrate(
        &mut self,
        stream: u64,
        server_device_id: u64,
        device_id: u64,
        role: RoleKey,
        election_id: Option<u128>,
    ) -> RtResult<Vec<Notice>> {
        if device_id != server_device_id {
            return Err(RtError::not_found(format!(
                "device id {device_id} is not this switch (device id {server_device_id})"
            )));
        }
        if let Some((d, r)) = self.streams.get(&stream) {
            if *d != device_id || *r != role {
                return Err(RtError::precondition(
                    "a stream cannot change its device id or role; open a new stream",
                ));
            }
        }
        let key = (device_id, role.clone());
        let ctrls = self.groups.entry(key.clone()).or_default();
        if let Some(e) = election_id {
            if ctrls.iter().any(|c| c.stream != stream && c.election_id == Some(e)) {
                return Err(RtError::invalid(format!(
                    "election id {e} is already used by another controller of this role"
                )));
            }
        }
        let before = Self::primary_of(ctrls);
        match ctrls.iter_mut().find(|c| c.stream == stream) {
            Some(c) => c.election_id = election_id,
            None => ctrls.push(Ctrl { stream, election_id }),
        }
        self.streams.insert(stream, key);
        let after = Self::primary_of(ctrls);
        let changed = before.map(|c| (c.stream, c.election_id)) != after.map(|c| (c.stream, c.election_id));
        Ok(if changed {
            ctrls.iter().map(|c| Self::notice(device_id, &role, after, c.stream)).collect()
        } else {
            vec![Self::notice(device_id, &role, after, stream)]
        })
    }

    /// Forgets a closed stream; if it was the primary, the next highest
    /// election id becomes primary and every remaining stream of the role is told.
    pub fn disconnect(&mut self, stream: u64) -> Vec<Notice> {
        let Some(key) = self.streams.remove(&stream) else { return Vec::new() };
        let Some(ctrls) = self.groups.get_mut(&key) else { return Vec::new() };
        let before = Self::primary_of(ctrls);
        ctrls.retain(|c| c.stream != stream);
        let after = Self::primary_of(ctrls);
        let notices = if before.map(|c| c.stream) == Some(stream) {
            ctrls.iter().map(|c| Self::notice(key.0, &key.1, after, c.stream)).collect()
        } else {
            Vec::new()
        };
        if ctrls.is_empty() {
            self.groups.remove(&key);
        }
        notices
    }

    /// Checks that a write (or pipeline change) comes from the primary.
    pub fn check_primary(
        &self,
        server_device_id: u64,
        device_id: u64,
        role: &str,
        election_id: Option<u128>,
    ) -> RtResult<()> {
        if device_id != server_device_id {
            return Err(RtError::not_found(format!(
                "device id {device_id} is not this switch (device id {server_device_id})"
            )));
        }
        // A named role exists while some controller has arbitrated for it;
        // the default role always exists (spec, Write RPC: unknown role is NOT_FOUND).
        if !role.is_empty() && !self.groups.contains_key(&(device_id, role.to_string())) {
            return Err(RtError::not_found(format!("role '{role}' is unknown: no controller arbitrated for it")));
        }
        match (self.primary(device_id, role), election_id) {
            (Some((_, p)), Some(e)) if p == e => Ok(()),
            (Some((_, p)), Some(e)) => Err(RtError::permission(format!(
                "election id {e} is not the primary's ({p}) for role '{role}'"
            ))),
            (Some(_), None) => Err(RtError::permission("write without election id; only the primary may write")),
            (None, _) => Err(RtError::permission(format!(
                "no primary controller for role '{role}': open a StreamChannel and arbitrate first"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_with_unknown_role_is_not_found_default_role_permission_denied() {
        let mut a = Arbitration::new();
        assert_eq!(a.check_primary(0, 0, "ops", Some(1)).unwrap_err().code, Code::NotFound);
        assert_eq!(a.check_primary(0, 0, "", Some(1)).unwrap_err().code, Code::PermissionDenied);
        a.arbitrate(1, 0, 0, "ops".into(), Some(5)).unwrap();
        assert_eq!(a.check_primary(0, 0, "ops", Some(4)).unwrap_err().code, Code::PermissionDenied);
        assert!(a.check_primary(0, 0, "ops", Some(5)).is_ok());
        assert_eq!(a.check_primary(0, 7, "ops", Some(5)).unwrap_err().code, Code::NotFound);
    }

    fn codes(n: &[Notice]) -> Vec<(u64, Code, Option<u128>)> {
        n.iter().map(|n| (n.stream, n.code, n.primary_election_id)).collect()
    }

    #[test]
    fn first_controller_becomes_primary() {
        let mut a = Arbitration::new();
        let n = a.arbitrate(1, 0, 0, "".into(), Some(10)).unwrap();
        assert_eq!(codes(&n), vec![(1, Code::Ok, Some(10))]);
        assert_eq!(a.primary(0, ""), Some((1, 10)));
        assert!(a.check_primary(0, 0, "", Some(10)).is_ok());
    }

    #[test]
    fn lower_election_id_is_backup_and_cannot_write() {
        let mut a = Arbitration::new();
        a.arbitrate(1, 0, 0, "".into(), Some(10)).unwrap();
        let n = a.arbitrate(2, 0, 0, "".into(), Some(5)).unwrap();
        assert_eq!(codes(&n), vec![(2, Code::AlreadyExists, Some(10))]);
        assert_eq!(a.check_primary(0, 0, "", Some(5)).unwrap_err().code, Code::PermissionDenied);
        assert_eq!(a.check_primary(0, 0, "", None).unwrap_err().code, Code::PermissionDenied);
    }

    #[test]
    fn higher_election_id_takes_over_and_everyone_is_told() {
        let mut a = Arbitration::new();
        a.arbitrate(1, 0, 0, "".into(), Some(10)).unwrap();
        let n = a.arbitrate(2, 0, 0, "".into(), Some(20)).unwrap();
        assert_eq!(codes(&n), vec![(1, Code::AlreadyExists, Some(20)), (2, Code::Ok, Some(20))]);
        assert_eq!(a.check_primary(0, 0, "", Some(10)).unwrap_err().code, Code::PermissionDenied);
        assert!(a.check_primary(0, 0, "", Some(20)).is_ok());
    }

    #[test]
    fn primary_disconnect_promotes_next_highest() {
        let mut a = Arbitration::new();
        a.arbitrate(1, 0, 0, "".into(), Some(10)).unwrap();
        a.arbitrate(2, 0, 0, "".into(), Some(20)).unwrap();
        a.arbitrate(3, 0, 0, "".into(), Some(5)).unwrap();
        let n = a.disconnect(2);
        assert_eq!(codes(&n), vec![(1, Code::Ok, Some(10)), (3, Code::AlreadyExists, Some(10))]);
        assert_eq!(a.primary(0, ""), Some((1, 10)));
        // a backup leaving changes nothing and tells nobody
        assert!(a.disconnect(3).is_empty());
        assert!(a.disconnect(1).is_empty());
        assert_eq!(a.primary(0, ""), None);
        assert_eq!(a.check_primary(0, 0, "", Some(10)).unwrap_err().code, Code::PermissionDenied);
    }

    #[test]
    fn duplicate_election_id_and_wrong_device_are_refused() {
        let mut a = Arbitration::new();
        a.arbitrate(1, 7, 7, "".into(), Some(10)).unwrap();
        assert_eq!(a.arbitrate(2, 7, 7, "".into(), Some(10)).unwrap_err().code, Code::InvalidArgument);
        assert_eq!(a.arbitrate(3, 7, 8, "".into(), Some(11)).unwrap_err().code, Code::NotFound);
        assert_eq!(a.check_primary(7, 8, "", Some(10)).unwrap_err().code, Code::NotFound);
        // the same stream may re-send its own election id
        assert_eq!(codes(&a.arbitrate(1, 7, 7, "".into(), Some(10)).unwrap()), vec![(1, Code::Ok, Some(10))]);
        assert_eq!(a.arbitrate(1, 7, 7, "other".into(), Some(10)).unwrap_err().code, Code::FailedPrecondition);
    }

    #[test]
    fn roles_are_independent() {
        let mut a = Arbitration::new();
        a.arbitrate(1, 0, 0, "".into(), Some(10)).unwrap();
        let n = a.arbitrate(2, 0, 0, "acl".into(), Some(1)).unwrap();
        assert_eq!(codes(&n), vec![(2, Code::Ok, Some(1))]);
        assert_eq!(a.primary_streams(0), vec![1, 2]);
        assert!(a.check_primary(0, 0, "acl", Some(1)).is_ok());
        assert_eq!(role_key("", 3), "#3");
        assert_eq!(role_key("x", 3), "x");
    }

    #[test]
    fn backup_without_election_id_sees_no_primary() {
        let mut a = Arbitration::new();
        let n = a.arbitrate(1, 0, 0, "".into(), None).unwrap();
        assert_eq!(codes(&n), vec![(1, Code::NotFound, None)]);
        assert_eq!(a.primary(0, ""), None);
    }
}
