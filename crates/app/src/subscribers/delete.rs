//! `subscribers.delete` (team, any role): erases the subscriber's personal data and refuses
//! their tokens from the next request on; their comments and votes stay, shown as
//! "Deleted subscriber". The same e-mail identifying later makes a new subscriber.

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::{Clock, SubscriberStore},
    Entity, SubscriberId,
};

use crate::error::{AppError, AppResult};

/// `subscribers.delete {id}`: erases the subscriber and returns their id. Any key but a
/// read-only one (403); 404 when the team has no such live subscriber.
pub async fn delete_subscriber(
    subscribers: &dyn SubscriberStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<SubscriberId> {
    caller.require(Need::Write)?;
    let id = SubscriberId::parse_required("id", id)?;
    if subscribers
        .erase_subscriber(caller.team_id, id, clock.now())
        .await?
    {
        Ok(id)
    } else {
        Err(AppError::not_found(Entity::Subscriber))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subscribers::{
        identify_subscriber, list_subscribers, team_subscriber_info, IdentifySubscriber,
        ListSubscribers,
    };
    use crate::test_support::Fixed;
    use sounding_domain::{
        access::Role,
        ports::{MockSubscriberStore, MockTokenCodec},
        DomainError, TeamId,
    };
    use sounding_store_memory::MemoryStore;

    #[tokio::test]
    async fn a_deleted_subscriber_is_gone_and_its_email_makes_a_new_one() {
        let store = MemoryStore::new();
        let team = TeamId::new();
        let member = KeyHolder {
            team_id: team,
            ..KeyHolder::sample(Role::Member, false)
        };
        let mut tokens = MockTokenCodec::new();
        tokens.expect_issue().returning(|_| "t".into());
        let identify = || IdentifySubscriber {
            email: Some("a@x.io".into()),
            ..Default::default()
        };
        let first = identify_subscriber(&store, &tokens, &Fixed, &member, identify())
            .await
            .unwrap();
        let id = first.subscriber.id.to_string();
        assert_eq!(
            delete_subscriber(&store, &Fixed, &member, Some(&id))
                .await
                .unwrap(),
            first.subscriber.id
        );
        for again in [
            delete_subscriber(&store, &Fixed, &member, Some(&id))
                .await
                .map(|_| ()),
            team_subscriber_info(&store, &member, Some(&id))
                .await
                .map(|_| ()),
        ] {
            assert_eq!(again, Err(AppError::not_found(Entity::Subscriber)));
        }
        let listed = list_subscribers(&store, &member, ListSubscribers::default())
            .await
            .unwrap();
        assert_eq!(listed.total, 0);
        let second = identify_subscriber(&store, &tokens, &Fixed, &member, identify())
            .await
            .unwrap();
        assert!(second.is_first_signin);
        assert_ne!(second.subscriber.id, first.subscriber.id);
    }

    #[tokio::test]
    async fn a_read_only_key_cannot_delete_and_storage_is_not_touched() {
        let mut store = MockSubscriberStore::new();
        store.expect_erase_subscriber().never();
        let err = delete_subscriber(
            &store,
            &Fixed,
            &KeyHolder::sample(Role::Owner, true),
            Some(&SubscriberId::new().to_string()),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, AppError::Domain(DomainError::Forbidden(_))));
    }

    #[tokio::test]
    async fn a_bad_id_is_400_naming_the_field() {
        let err = delete_subscriber(
            &MockSubscriberStore::new(),
            &Fixed,
            &KeyHolder::sample(Role::Owner, false),
            Some("nope"),
        )
        .await
        .unwrap_err();
        assert_eq!(err, AppError::invalid("id must be a UUID"));
    }
}
