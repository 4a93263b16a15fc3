//! Subscriber tokens (decisions §5): HS256 JWTs carrying `sub`, `tid`, `iat`, `exp`, `ver`.
//! The codec itself is an adapter; the domain fixes the claims and their lifetime.

use crate::{
    ids::{SubscriberId, TeamId},
    timestamp::Timestamp,
};

/// How long a subscriber token is valid after it is issued: 90 days, in seconds.
pub const TOKEN_LIFETIME_SECS: i64 = 90 * 24 * 60 * 60;
/// Shorter signing secrets are refused at start-up.
pub const MIN_SECRET_BYTES: usize = 32;

/// What a subscriber token asserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriberClaims {
    /// `sub`: the subscriber the token acts as.
    pub subscriber_id: SubscriberId,
    /// `tid`: the subscriber's team.
    pub team_id: TeamId,
    /// `iat`: when it was issued, in Unix seconds.
    pub issued_at: i64,
    /// `exp`: [`TOKEN_LIFETIME_SECS`] after `issued_at`; from then on the token is expired.
    pub expires_at: i64,
    /// `ver`: the subscriber's token version at issue; a token whose version is no longer the
    /// subscriber's (after logout or deletion) is refused.
    pub version: i64,
}

impl SubscriberClaims {
    /// The claims of a token issued at `now` for a subscriber at token version `version`.
    ///
    /// ```
    /// use sounding_domain::token::{SubscriberClaims, TOKEN_LIFETIME_SECS};
    /// use sounding_domain::{SubscriberId, TeamId, Timestamp};
    ///
    /// let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
    /// let claims = SubscriberClaims::issue(SubscriberId::new(), TeamId::new(), 2, now);
    /// assert_eq!(claims.issued_at, 1_800_000_000);
    /// assert_eq!(claims.expires_at - claims.issued_at, 90 * 24 * 60 * 60);
    /// assert_eq!(TOKEN_LIFETIME_SECS, 7_776_000);
    /// ```
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

/// Why a subscriber token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Well signed but past its `exp`: the client should identify the subscriber again.
    #[error("Token expired")]
    Expired,
    /// Anything else wrong: malformed, badly signed, another algorithm, a claim missing.
    #[error("invalid token")]
    Invalid,
}
