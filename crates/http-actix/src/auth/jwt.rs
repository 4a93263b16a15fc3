//! [`JwtCodec`]: subscriber tokens as HS256 JWTs with claims `sub`, `tid`, `iat`, `exp`, `ver`
//! (decisions §5). The algorithm is pinned (`alg: none` and every other algorithm are refused)
//! and `exp` is required. Expiry is judged against the `now` the caller passes — the injected
//! clock — with no leeway: a token is valid while `now < exp`.
//!
//! Tokens verified lately are remembered with their claims (`JwtCodec::verified`): a widget
//! sends the same token with every request, and checking its signature and reading its JSON
//! again was 7 % of a vote's instructions (docs/benchmarks.md, twenty-sixth round). The whole
//! token is the key, so only a token whose signature this codec checked is ever found there,
//! and its expiry is still judged at each use. A token that fails is never remembered.

use std::fmt;

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use quick_cache::sync::Cache;
use serde::{Deserialize, Serialize};
use sounding_domain::{
    ports::TokenCodec,
    token::{SubscriberClaims, TokenError, MIN_SECRET_BYTES},
    SubscriberId, TeamId, Timestamp,
};

/// The signing secret was shorter than [`MIN_SECRET_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the token signing secret must be at least {MIN_SECRET_BYTES} bytes (got {len})")]
pub struct WeakSecret {
    pub len: usize,
}

/// Signs and verifies subscriber tokens with an HMAC-SHA256 key (the secret's bytes).
pub struct JwtCodec {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// Tokens whose signature checked, with their claims (module doc).
    verified: Cache<String, WireClaims>,
}

/// How many verified tokens are remembered: about 400 bytes each, so 4 MB at most.
const REMEMBERED_TOKENS: usize = 10_000;

impl JwtCodec {
    pub fn new(secret: &[u8]) -> Result<Self, WeakSecret> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(WeakSecret { len: secret.len() });
        }
        let mut validation = Validation::new(Algorithm::HS256);
        // Expiry is checked in `verify` against the injected clock, not the system time.
        validation.validate_exp = false;
        validation.leeway = 0;
        validation.required_spec_claims = ["exp", "sub"].into_iter().map(String::from).collect();
        Ok(Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            verified: Cache::new(REMEMBERED_TOKENS),
        })
    }
}

impl fmt::Debug for JwtCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtCodec(HS256, secret redacted)")
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct WireClaims {
    sub: SubscriberId,
    tid: TeamId,
    iat: i64,
    exp: i64,
    ver: i64,
}

impl TokenCodec for JwtCodec {
    fn issue(&self, claims: &SubscriberClaims) -> String {
        let wire = WireClaims {
            sub: claims.subscriber_id,
            tid: claims.team_id,
            iat: claims.issued_at,
            exp: claims.expires_at,
            ver: claims.version,
        };
        // HMAC signing of a struct of ids and integers has no failure mode.
        encode(&Header::new(Algorithm::HS256), &wire, &self.encoding)
            .expect("HS256 signing of subscriber claims cannot fail")
    }

    fn verify(&self, token: &str, now: Timestamp) -> Result<SubscriberClaims, TokenError> {
        let wire = match self.verified.get(token) {
            Some(wire) => wire,
            None => {
                let wire = decode::<WireClaims>(token, &self.decoding, &self.validation)
                    .map_err(|_| TokenError::Invalid)?
                    .claims;
                self.verified.insert(token.to_owned(), wire.clone());
                wire
            }
        };
        if now.unix_seconds() >= wire.exp {
            return Err(TokenError::Expired);
        }
        Ok(SubscriberClaims {
            subscriber_id: wire.sub,
            team_id: wire.tid,
            issued_at: wire.iat,
            expires_at: wire.exp,
            version: wire.ver,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
    use serde_json::json;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix_seconds(secs).unwrap()
    }

    fn claims() -> SubscriberClaims {
        SubscriberClaims::issue(SubscriberId::new(), TeamId::new(), 3, at(1_800_000_000))
    }

    fn b64(value: serde_json::Value) -> String {
        URL_SAFE_NO_PAD.encode(value.to_string())
    }

    #[test]
    fn short_secrets_are_refused() {
        assert_eq!(
            JwtCodec::new(&SECRET[..31]).unwrap_err(),
            WeakSecret { len: 31 }
        );
        assert!(JwtCodec::new(SECRET).is_ok());
    }

    #[test]
    fn a_token_round_trips_with_its_claims() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let claims = claims();
        let token = codec.issue(&claims);
        assert_eq!(codec.verify(&token, at(1_800_000_001)), Ok(claims.clone()));

        let payload = token.split('.').nth(1).unwrap();
        let wire: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        assert_eq!(
            wire,
            json!({
                "sub": claims.subscriber_id.to_string(),
                "tid": claims.team_id.to_string(),
                "iat": claims.issued_at,
                "exp": claims.expires_at,
                "ver": 3,
            })
        );
    }

    #[test]
    fn expiry_is_judged_by_the_given_clock_without_leeway() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let claims = claims();
        let token = codec.issue(&claims);
        assert!(codec.verify(&token, at(claims.expires_at - 1)).is_ok());
        assert_eq!(
            codec.verify(&token, at(claims.expires_at)),
            Err(TokenError::Expired)
        );
        assert_eq!(
            codec.verify(&token, at(claims.expires_at + 3600)),
            Err(TokenError::Expired)
        );
    }

    #[test]
    fn a_verified_token_is_remembered_and_still_expires() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let claims = claims();
        let token = codec.issue(&claims);
        assert!(codec.verified.get(token.as_str()).is_none());
        assert_eq!(codec.verify(&token, at(1_800_000_001)), Ok(claims.clone()));
        assert!(codec.verified.get(token.as_str()).is_some(), "remembered");
        assert_eq!(codec.verify(&token, at(1_800_000_002)), Ok(claims.clone()));
        assert_eq!(
            codec.verify(&token, at(claims.expires_at)),
            Err(TokenError::Expired),
            "a remembered token's expiry is judged at each use"
        );
    }

    #[test]
    fn a_token_that_fails_is_not_remembered_nor_is_its_forged_twin_accepted() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let claims = claims();
        let token = codec.issue(&claims);
        assert!(codec.verify(&token, at(1_800_000_001)).is_ok());
        // The same header and claims under a signature of another key: a different token.
        let other = JwtCodec::new(b"another-secret-another-secret-xx").unwrap();
        let forged = other.issue(&claims);
        assert_eq!(
            codec.verify(&forged, at(1_800_000_001)),
            Err(TokenError::Invalid)
        );
        assert!(codec.verified.get(forged.as_str()).is_none());
        assert_eq!(codec.verified.len(), 1);
    }

    #[test]
    fn a_token_signed_with_another_secret_is_invalid() {
        let other = JwtCodec::new(b"another-secret-another-secret-xx").unwrap();
        let token = other.issue(&claims());
        let codec = JwtCodec::new(SECRET).unwrap();
        assert_eq!(
            codec.verify(&token, at(1_800_000_001)),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn alg_none_and_other_algorithms_are_refused() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let token = codec.issue(&claims());
        let mut parts = token.split('.');
        let (_, payload) = (parts.next().unwrap(), parts.next().unwrap());

        let unsigned = format!("{}.{payload}.", b64(json!({"alg": "none", "typ": "JWT"})));
        assert_eq!(
            codec.verify(&unsigned, at(1_800_000_001)),
            Err(TokenError::Invalid)
        );

        // Same key, another HMAC algorithm: still refused, the algorithm is pinned.
        let hs512 = encode(
            &Header::new(Algorithm::HS512),
            &json!({"sub": SubscriberId::new(), "tid": TeamId::new(), "iat": 0, "exp": 4_000_000_000_i64, "ver": 0}),
            &EncodingKey::from_secret(SECRET),
        )
        .unwrap();
        assert_eq!(
            codec.verify(&hs512, at(1_800_000_001)),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn a_token_without_exp_is_invalid() {
        let codec = JwtCodec::new(SECRET).unwrap();
        let token = encode(
            &Header::new(Algorithm::HS256),
            &json!({"sub": SubscriberId::new(), "tid": TeamId::new(), "iat": 0, "ver": 0}),
            &EncodingKey::from_secret(SECRET),
        )
        .unwrap();
        assert_eq!(codec.verify(&token, at(0)), Err(TokenError::Invalid));
    }

    #[test]
    fn garbage_is_invalid() {
        let codec = JwtCodec::new(SECRET).unwrap();
        for token in ["", "x.y.z", "not a token", "a.b"] {
            assert_eq!(codec.verify(token, at(0)), Err(TokenError::Invalid));
        }
    }
}
