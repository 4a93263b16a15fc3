//! `public/subscriber.identify`: finds the subscriber by e-mail (case-insensitive) and merges
//! the given data into it, or creates one; returns a fresh subscriber token.

use serde_json::Value;
use sounding_domain::{
    access::{KeyHolder, Need},
    ports::{Clock, SubscriberStore, TokenCodec},
    subscriber::{Identify, Subscriber},
    token::SubscriberClaims,
};

use crate::error::AppResult;

/// The body of `public/subscriber.identify`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct IdentifySubscriber {
    /// Required; a valid address, at most 254 characters, matched case-insensitively.
    pub email: Option<String>,
    /// At most 255 characters; replaces the stored name. A new subscriber without one is named
    /// from the e-mail (`jane.doe@x.io` becomes `Jane Doe`).
    pub name: Option<String>,
    /// Custom attributes, merged key by key into the stored ones; at most 16 KiB.
    pub meta: Option<Value>,
    /// `avatarUrl`: an http(s) URL; blank means not given.
    pub avatar_url: Option<String>,
    /// `widget` or `api` (the default).
    pub source: Option<String>,
}

/// What `identify` answers.
#[derive(Debug, Clone)]
pub struct Identified {
    /// The subscriber as stored after the merge or creation.
    pub subscriber: Subscriber,
    /// A fresh subscriber token (the response's `code`).
    pub token: String,
    /// `isFirstSignin`: whether the subscriber was created by this call.
    pub is_first_signin: bool,
}

/// `public/subscriber.identify`: the team's subscriber with that e-mail, created or merged
/// into, and a token for them. Any key but a read-only one (403); 400 for a bad e-mail.
pub async fn identify_subscriber(
    subscribers: &dyn SubscriberStore,
    tokens: &dyn TokenCodec,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: IdentifySubscriber,
) -> AppResult<Identified> {
    caller.require(Need::Write)?;
    let identify = Identify::new(
        input.email.as_deref(),
        input.name.as_deref(),
        input.meta.as_ref(),
        input.avatar_url.as_deref(),
        input.source.as_deref(),
    )?;
    let now = clock.now();
    let (subscriber, created) = subscribers.identify(caller.team_id, &identify, now).await?;
    let claims = SubscriberClaims::issue(
        subscriber.id,
        subscriber.team_id,
        subscriber.token_version,
        now,
    );
    Ok(Identified {
        token: tokens.issue(&claims),
        subscriber,
        is_first_signin: created,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use crate::AppError;
    use serde_json::json;
    use sounding_domain::{
        access::Role,
        ports::{MockTokenCodec, StoreError},
        DomainError, TeamId,
    };
    use sounding_store_memory::MemoryStore;

    fn codec() -> MockTokenCodec {
        let mut tokens = MockTokenCodec::new();
        tokens
            .expect_issue()
            .returning(|c| format!("token-for-{}-v{}", c.subscriber_id, c.version));
        tokens
    }

    #[tokio::test]
    async fn identify_twice_with_different_case_is_one_subscriber_with_merged_meta() {
        let store = MemoryStore::new();
        let team = TeamId::new();
        let caller = KeyHolder {
            team_id: team,
            ..KeyHolder::sample(Role::Owner, false)
        };
        let first = identify_subscriber(
            &store,
            &codec(),
            &Fixed,
            &caller,
            IdentifySubscriber {
                email: Some("Jane.Doe@Example.com".into()),
                meta: Some(json!({"plan": "free", "a": 1})),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert!(first.is_first_signin);
        assert_eq!(first.subscriber.name, "Jane Doe");
        assert_eq!(first.token, format!("token-for-{}-v0", first.subscriber.id));

        let second = identify_subscriber(
            &store,
            &codec(),
            &Fixed,
            &caller,
            IdentifySubscriber {
                email: Some("jane.doe@EXAMPLE.com".into()),
                meta: Some(json!({"plan": "pro"})),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert!(!second.is_first_signin);
        assert_eq!(second.subscriber.id, first.subscriber.id);
        assert_eq!(
            Value::Object(second.subscriber.meta),
            json!({"plan": "pro", "a": 1})
        );
        assert_eq!(second.subscriber.attributes.plan.as_deref(), Some("pro"));
    }

    #[tokio::test]
    async fn a_bad_email_is_refused_before_storage() {
        let store = MemoryStore::new();
        let err = identify_subscriber(
            &store,
            &codec(),
            &Fixed,
            &KeyHolder::sample(Role::Owner, false),
            IdentifySubscriber {
                email: Some("nope".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::Domain(DomainError::invalid("email must be a valid e-mail address"))
        );
    }

    #[tokio::test]
    async fn a_read_only_key_cannot_identify() {
        let mut subscribers = sounding_domain::ports::MockSubscriberStore::new();
        subscribers.expect_identify().never();
        let err = identify_subscriber(
            &subscribers,
            &codec(),
            &Fixed,
            &KeyHolder::sample(Role::Owner, true),
            IdentifySubscriber {
                email: Some("a@x.io".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert!(matches!(err, AppError::Domain(DomainError::Forbidden(_))));
    }

    #[tokio::test]
    async fn a_storage_failure_is_passed_on() {
        let mut subscribers = sounding_domain::ports::MockSubscriberStore::new();
        subscribers
            .expect_identify()
            .returning(|_, _, _| Err(StoreError::Unavailable("down".into())));
        let err = identify_subscriber(
            &subscribers,
            &codec(),
            &Fixed,
            &KeyHolder::sample(Role::Owner, false),
            IdentifySubscriber {
                email: Some("a@x.io".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(err, AppError::Store(StoreError::Unavailable("down".into())));
    }
}
