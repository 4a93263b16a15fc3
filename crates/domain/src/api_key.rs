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

pub const API_KEY_LEN: usize = 38;
/// How much of a key is kept in clear to recognise it in listings.
pub const API_KEY_PREFIX_LEN: usize = 6;

/// A key in clear. Exists only between generation and the one response that shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    pub fn generate() -> Self {
        Self(
            OsRng
                .sample_iter(&Alphanumeric)
                .take(API_KEY_LEN)
                .map(char::from)
                .collect(),
        )
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn hash(&self) -> String {
        hash_key(&self.0)
    }

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub team_id: TeamId,
    pub user_id: UserId,
    pub name: Option<String>,
    pub role: Role,
    pub read_only: bool,
    pub prefix: String,
    pub key_hash: String,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
}

impl ApiKey {
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
    pub key: ApiKey,
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
