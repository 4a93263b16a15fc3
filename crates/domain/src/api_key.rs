//! Team API keys: 38 random `[A-Za-z0-9]` characters from the OS's CSPRNG, shown once and
//! stored only as a SHA-256 hash.

use std::fmt;

use rand::{distributions::Alphanumeric, rngs::OsRng, Rng};
use sha2::{Digest, Sha256};

use crate::{
    access::Role,
    ids::{ApiKeyId, TeamId, UserId},
    timestamp::Timestamp,
};

/// Characters in a key (interface §5), each of `[A-Za-z0-9]`.
pub const API_KEY_LEN: usize = 38;
/// How much of a key is kept in clear to recognise it in listings.
pub const API_KEY_PREFIX_LEN: usize = 6;

/// A key in clear. Exists only between generation and the one response that shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    /// A fresh key: [`API_KEY_LEN`] alphanumeric characters from the OS's CSPRNG.
    pub fn generate() -> Self {
        Self(
            OsRng
                .sample_iter(&Alphanumeric)
                .take(API_KEY_LEN)
                .map(char::from)
                .collect(),
        )
    }

    /// The key in clear, for the one response that shows it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What storage keeps instead of the key: [`hash_key`] of it.
    pub fn hash(&self) -> String {
        hash_key(&self.0)
    }

    /// The first [`API_KEY_PREFIX_LEN`] characters, kept in clear to recognise the key.
    pub fn prefix(&self) -> String {
        self.0[..API_KEY_PREFIX_LEN].to_owned()
    }
}

impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKeySecret({}…)", &self.0[..API_KEY_PREFIX_LEN])
    }
}

/// Lowercase hex SHA-256 of a presented key: the lookup value in storage.
pub fn hash_key(raw: &str) -> String {
    let digest = Sha256::digest(raw.as_bytes());
    // One formatting pass over the digest (generic-array writes hex from a table), not 32.
    format!("{digest:x}")
}

/// Whether a bearer token has the shape of an API key (as opposed to a JWT).
pub fn looks_like_api_key(raw: &str) -> bool {
    raw.len() == API_KEY_LEN && raw.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A team API key as stored: its hash and prefix, never the key itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// Names the key in `api-keys.list` and `api-keys.delete`.
    pub id: ApiKeyId,
    /// The team whose operations the key may call.
    pub team_id: TeamId,
    /// The team user the key belongs to; deleting the user deletes the key.
    pub user_id: UserId,
    /// A label given at creation; `None` when none (or a blank one) was given.
    pub name: Option<String>,
    /// The role it was issued with; it acts with the lower of this and its user's role.
    pub role: Role,
    /// Allows `.list`, `.info`, `.count` and `.deliveries` operations only.
    pub read_only: bool,
    /// The key's first [`API_KEY_PREFIX_LEN`] characters, to recognise it in listings.
    pub prefix: String,
    /// [`hash_key`] of the key: what authentication looks it up by.
    pub key_hash: String,
    /// When the key was issued.
    pub created_at: Timestamp,
    /// The last authentication with it, recorded at most once a minute
    /// (`team_admin::key_use_due`); `None` until first used.
    pub last_used_at: Option<Timestamp>,
}

impl ApiKey {
    /// A new key of `user_id` in `team_id`, never used yet, and its secret: the only copy of
    /// the key in clear, to show once.
    ///
    /// ```
    /// use sounding_domain::access::Role;
    /// use sounding_domain::api_key::{hash_key, looks_like_api_key, ApiKey, API_KEY_LEN};
    /// use sounding_domain::{TeamId, Timestamp, UserId};
    ///
    /// let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
    /// let (key, secret) =
    ///     ApiKey::new(TeamId::new(), UserId::new(), Role::Member, true, None, now);
    /// assert_eq!(secret.expose().len(), API_KEY_LEN);
    /// assert!(looks_like_api_key(secret.expose()));
    /// // Only the hash and the prefix are kept.
    /// assert_eq!(key.key_hash, hash_key(secret.expose()));
    /// assert!(secret.expose().starts_with(&key.prefix));
    /// assert_eq!(key.last_used_at, None);
    /// // A JWT is told apart from a key by its shape.
    /// assert!(!looks_like_api_key("eyJhbGciOiJIUzI1NiJ9.e30.sig"));
    /// ```
    pub fn new(
        team_id: TeamId,
        user_id: UserId,
        role: Role,
        read_only: bool,
        name: Option<String>,
        now: Timestamp,
    ) -> (Self, ApiKeySecret) {
        let secret = ApiKeySecret::generate();
        let key = Self {
            id: ApiKeyId::new(),
            team_id,
            user_id,
            name,
            role,
            read_only,
            prefix: secret.prefix(),
            key_hash: secret.hash(),
            created_at: now,
            last_used_at: None,
        };
        (key, secret)
    }
}

/// An API key found by its hash, with the role of the user it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyGrant {
    /// The key whose hash matched.
    pub key: ApiKey,
    /// The key's user's current role: the key acts with the lower of this and `key.role`.
    pub user_role: Role,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_have_the_documented_shape() {
        let a = ApiKeySecret::generate();
        let b = ApiKeySecret::generate();
        assert_eq!(a.expose().len(), API_KEY_LEN);
        assert!(looks_like_api_key(a.expose()));
        assert_ne!(a, b);
        assert_eq!(a.hash().len(), 64);
        assert_eq!(a.hash(), hash_key(a.expose()));
        assert!(!format!("{a:?}").contains(a.expose()));
    }

    #[test]
    fn a_key_is_stored_as_the_lowercase_hex_of_its_sha256() {
        // FIPS 180-2's example: keys hashed before this encoding changed must still match.
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn jwts_do_not_look_like_keys() {
        assert!(!looks_like_api_key(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc"
        ));
        assert!(!looks_like_api_key(&"a".repeat(37)));
    }
}
