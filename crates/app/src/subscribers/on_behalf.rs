//! The subscriber a team operation acts for (`feedback-comments.create`,
//! `feedbacks.vote|unvote`, `topics.vote|unvote`): named by `subscriberId` or `email`, or else
//! the one standing for the key's user (`domain::subscriber::OnBehalfOf`).

use sounding_domain::{
    access::KeyHolder,
    ports::{AccessStore, SubscriberStore},
    subscriber::OnBehalfOf,
    subscriber::Subscriber,
    Entity, Timestamp,
};

use crate::{
    error::{AppError, AppResult},
    feedback::{key_user, team_author},
};

fn subscriber_not_found() -> AppError {
    AppError::not_found(Entity::Subscriber)
}

/// The subscriber to act for: a live one of the team by id (else `Subscriber not found`), or
/// the one with the e-mail, found or created as `identify` does, or the key's user's.
pub(crate) async fn subscriber_for(
    store: &(impl AccessStore + SubscriberStore + ?Sized),
    caller: &KeyHolder,
    who: OnBehalfOf,
    now: Timestamp,
) -> AppResult<Subscriber> {
    match who {
        // A deleted subscriber does nothing new.
        OnBehalfOf::Id(id) => store
            .live_subscriber(caller.team_id, id)
            .await?
            .ok_or_else(subscriber_not_found),
        OnBehalfOf::Email(identify) => team_author(store, caller, Some(identify), now).await,
        OnBehalfOf::KeyUser => team_author(store, caller, None, now).await,
    }
}

/// The same subscriber when it exists, creating nothing: for undoing (`unvote`), where a
/// subscriber not yet known has nothing to undo. An unknown id is still `Subscriber not found`.
pub(crate) async fn existing_subscriber_for(
    store: &(impl AccessStore + SubscriberStore + ?Sized),
    caller: &KeyHolder,
    who: OnBehalfOf,
) -> AppResult<Option<Subscriber>> {
    let email = match who {
        OnBehalfOf::Id(id) => {
            return store
                .live_subscriber(caller.team_id, id)
                .await?
                .map(Some)
                .ok_or_else(subscriber_not_found)
        }
        OnBehalfOf::Email(identify) => identify.email.into_string(),
        OnBehalfOf::KeyUser => key_user(store, caller).await?.email,
    };
    Ok(store.subscriber_by_email(caller.team_id, &email).await?)
}

/// The subscriber fields of an on-behalf operation as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct OnBehalfInput {
    /// `subscriberId`: one of the team's live subscribers; exclusive with `email`.
    pub subscriber_id: Option<String>,
    /// The subscriber with this e-mail, created with source `api` when new.
    pub email: Option<String>,
    /// The name of a subscriber created for `email`.
    pub name: Option<String>,
}

impl OnBehalfInput {
    pub(crate) fn parse(&self) -> AppResult<OnBehalfOf> {
        Ok(OnBehalfOf::parse(
            self.subscriber_id.as_deref(),
            self.email.as_deref(),
            self.name.as_deref(),
        )?)
    }
}
