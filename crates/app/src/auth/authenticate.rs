//! Resolves a bearer credential: a team API key (looked up by hash on every request, so a
//! revoked key fails at once on every instance) or a subscriber JWT (signature, expiry, and
//! a live subscriber whose token version matches).

use sounding_domain::{
    access::{Caller, KeyHolder},
    api_key::{hash_key, looks_like_api_key},
    ports::{AccessStore, Clock, SubscriberStore, TokenCodec},
    team_admin::{key_use_due, KEY_USE_RESOLUTION_SECONDS},
    token::TokenError,
};

use crate::error::{AppResult, AuthError};

/// Where a credential came from; a header wins over the cookie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The `Authorization: Bearer` token: an API key or a subscriber token.
    Bearer(String),
    /// The `publicAccessToken` cookie: a subscriber token only (an API key there is refused).
    Cookie(String),
}

impl Credential {
    fn token(&self) -> &str {
        match self {
            Credential::Bearer(t) | Credential::Cookie(t) => t,
        }
    }
}

/// Resolves `credential` to the caller: a key holder acting with the lower of its key's and
/// its user's role, or a subscriber session. 401 `Token expired` for an expired subscriber
/// token; 401 `Authentication required` for anything else that does not resolve.
pub async fn authenticate(
    access: &dyn AccessStore,
    subscribers: &dyn SubscriberStore,
    tokens: &dyn TokenCodec,
    clock: &dyn Clock,
    credential: &Credential,
) -> AppResult<Caller> {
    let token = credential.token().trim();
    // API keys are only accepted in the Authorization header, never from a cookie.
    if matches!(credential, Credential::Bearer(_)) && looks_like_api_key(token) {
        let grant = access
            .api_key_by_hash(&hash_key(token))
            .await?
            .ok_or(AuthError::Required)?;
        let now = clock.now();
        if key_use_due(grant.key.last_used_at, now) {
            // Recording a use is best effort: a busy database must not fail the request.
            if let Err(e) = access
                .touch_api_key(grant.key.id, now, KEY_USE_RESOLUTION_SECONDS)
                .await
            {
                tracing::warn!(error = %e, "could not record an API key's use");
            }
        }
        return Ok(Caller::Team(KeyHolder {
            team_id: grant.key.team_id,
            key_id: grant.key.id,
            user_id: grant.key.user_id,
            role: grant.key.role.min(grant.user_role),
            read_only: grant.key.read_only,
        }));
    }
    let claims = tokens.verify(token, clock.now()).map_err(|e| match e {
        TokenError::Expired => AuthError::Expired,
        TokenError::Invalid => AuthError::Required,
    })?;
    // A live subscriber of the team is proof enough that the team is live: teams are never
    // deleted, and their subscribers would go with them. Whether they are a team member comes
    // with them, in the same read, so no use case asks again.
    let session = subscribers
        .subscriber_session(claims.team_id, claims.subscriber_id)
        .await?
        .filter(|s| s.subscriber.token_version == claims.version)
        .ok_or(AuthError::Required)?;
    Ok(Caller::Subscriber(session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use crate::AppError;
    use sounding_domain::{
        access::{Role, SubscriberSession},
        api_key::{ApiKey, ApiKeyGrant},
        ports::{MockAccessStore, MockSubscriberStore, MockTokenCodec},
        subscriber::{Identify, Subscriber},
        token::SubscriberClaims,
        TeamId, Timestamp, UserId,
    };

    /// `authenticate` with API keys only: no token is verified, no subscriber read.
    async fn with_keys(access: &MockAccessStore, credential: &Credential) -> AppResult<Caller> {
        let (subscribers, tokens) = (MockSubscriberStore::new(), MockTokenCodec::new());
        authenticate(access, &subscribers, &tokens, &Fixed, credential).await
    }

    /// What `authenticate` answers when the token codec refuses with `error`.
    async fn refused_token(error: TokenError, credential: &Credential) -> AppError {
        let mut tokens = MockTokenCodec::new();
        tokens.expect_verify().returning(move |_, _| Err(error));
        let (access, subscribers) = (MockAccessStore::new(), MockSubscriberStore::new());
        authenticate(&access, &subscribers, &tokens, &Fixed, credential)
            .await
            .unwrap_err()
    }

    #[tokio::test]
    async fn a_key_acts_with_the_lower_of_its_role_and_its_users_role() {
        let (key, secret) = ApiKey::new(
            TeamId::new(),
            UserId::new(),
            Role::Owner,
            false,
            None,
            Timestamp::from_unix_seconds(0).unwrap(),
        );
        let expected_hash = secret.hash();
        let mut access = MockAccessStore::new();
        access
            .expect_api_key_by_hash()
            .withf(move |h| h == expected_hash)
            .returning(move |_| {
                Ok(Some(ApiKeyGrant {
                    key: key.clone(),
                    user_role: Role::Member,
                }))
            });
        access
            .expect_touch_api_key()
            .times(1)
            .returning(|_, _, _| Ok(()));
        let caller = with_keys(&access, &Credential::Bearer(secret.expose().to_owned()))
            .await
            .unwrap();
        let Caller::Team(holder) = caller else {
            panic!("expected a key holder")
        };
        assert_eq!(holder.role, Role::Member);
    }

    #[tokio::test]
    async fn a_key_used_within_the_minute_is_not_written_again() {
        let (mut key, secret) = ApiKey::new(
            TeamId::new(),
            UserId::new(),
            Role::Admin,
            true,
            None,
            Timestamp::from_unix_seconds(0).unwrap(),
        );
        key.last_used_at = Some(Timestamp::from_unix_seconds(1_800_000_000 - 59).unwrap());
        let mut access = MockAccessStore::new();
        access.expect_api_key_by_hash().returning(move |_| {
            Ok(Some(ApiKeyGrant {
                key: key.clone(),
                user_role: Role::Owner,
            }))
        });
        access.expect_touch_api_key().never();
        let caller = with_keys(&access, &Credential::Bearer(secret.expose().to_owned()))
            .await
            .unwrap();
        assert!(matches!(
            caller,
            Caller::Team(KeyHolder {
                read_only: true,
                role: Role::Admin,
                ..
            })
        ));
    }

    #[tokio::test]
    async fn an_unknown_key_is_authentication_required() {
        let mut access = MockAccessStore::new();
        access.expect_api_key_by_hash().returning(|_| Ok(None));
        let err = with_keys(&access, &Credential::Bearer("a".repeat(38)))
            .await
            .unwrap_err();
        assert_eq!(err, AppError::Auth(AuthError::Required));
    }

    #[tokio::test]
    async fn a_key_in_a_cookie_is_treated_as_a_token_and_refused() {
        assert_eq!(
            refused_token(TokenError::Invalid, &Credential::Cookie("a".repeat(38))).await,
            AppError::Auth(AuthError::Required)
        );
    }

    #[tokio::test]
    async fn an_expired_token_says_so() {
        assert_eq!(
            refused_token(TokenError::Expired, &Credential::Bearer("x.y.z".into())).await,
            AppError::Auth(AuthError::Expired)
        );
    }

    #[tokio::test]
    async fn a_token_needs_a_live_subscriber_of_its_team_with_its_version() {
        let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        let team = TeamId::new();
        let identify = Identify::new(Some("ada@example.com"), None, None, None, None).unwrap();
        let mut subscriber = Subscriber::identified(team, &identify, now);
        subscriber.token_version = 3;
        let (id, stored) = (subscriber.id, subscriber.clone());
        let claims = move |version| SubscriberClaims {
            subscriber_id: id,
            team_id: team,
            issued_at: 0,
            expires_at: i64::MAX,
            version,
        };
        let attempt = |version: i64, found: Option<Subscriber>| {
            let mut tokens = MockTokenCodec::new();
            tokens
                .expect_verify()
                .returning(move |_, _| Ok(claims(version)));
            let mut subscribers = MockSubscriberStore::new();
            subscribers
                .expect_subscriber_session()
                .withf(move |t, s| *t == team && *s == id)
                .times(1)
                .returning(move |_, _| {
                    Ok(found.clone().map(|subscriber| SubscriberSession {
                        subscriber,
                        is_team_member: true,
                    }))
                });
            async move {
                authenticate(
                    &MockAccessStore::new(),
                    &subscribers,
                    &tokens,
                    &Fixed,
                    &Credential::Bearer("x.y.z".into()),
                )
                .await
            }
        };
        let session = attempt(3, Some(stored.clone())).await.unwrap();
        // Membership comes with the subscriber, as the store answered it.
        assert!(session.is_team_member());
        assert!(matches!(session, Caller::Subscriber(s) if s.subscriber.id == id));
        // Logged out since (a newer version), or gone (with its team, or alone).
        for (version, found) in [(2, Some(stored)), (3, None)] {
            assert_eq!(
                attempt(version, found).await.unwrap_err(),
                AppError::Auth(AuthError::Required)
            );
        }
    }
}
