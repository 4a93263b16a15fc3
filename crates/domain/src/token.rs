//! Subscriber tokens (decisions §5): HS256 JWTs carrying `sub`, `tid`, `iat`, `exp`, `ver`.
//! The codec itself is an adapter; the domain fixes the claims and their lifetime.

use crate::{
    ids::{SubscriberId, TeamId},
    timestamp::Timestamp,
};

pub const TOKEN_LIFETIME_SECS: i64 = 90 * 24 * 60 * 60;
/// Shorter signing secrets are refused at start-up.
pub const MIN_SECRET_BYTES: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriberClaims {
    pub subscriber_id: SubscriberId,
    pub team_id: TeamId,
    pub issued_at: i64,
    pub expires_at: i64,
    pub version: i64,
}

impl SubscriberClaims {
    pub fn issue(
        subscriber_id: SubscriberId,
        team_id: TeamId,
        version: i64,
        now: Timestamp,
    ) -> Self {
        let iat = now.unix_seconds();
        Self {
            subscriber_id,
            team_id,
            issued_at: iat,
            expires_at: iat + TOKEN_LIFETIME_SECS,
            version,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("Token expired")]
    Expired,
    #[error("invalid token")]
    Invalid,
}
