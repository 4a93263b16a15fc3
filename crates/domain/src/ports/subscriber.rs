//! Subscribers: the team's end users.

use crate::{
    access::SubscriberSession,
    ids::{SubscriberId, TeamId},
    page::Paged,
    ports::StoreResult,
    subscriber::{Identify, Subscriber},
    team_admin::{SubscriberPatch, SubscriberQuery},
    timestamp::Timestamp,
};
use async_trait::async_trait;

/// The team's subscribers: identification, token revocation and administration.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SubscriberStore: Send + Sync {
    /// The team's subscriber, deleted (erased) ones included; `None` when the team has none
    /// with this id.
    async fn subscriber(&self, team: TeamId, id: SubscriberId) -> StoreResult<Option<Subscriber>>;
    /// `subscriber`, with whether a user of the team has its e-mail
    /// (`TeamUser::makes_member`), in one read: what authenticating a token needs.
    async fn subscriber_session(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<SubscriberSession>>;
    /// The team's subscriber with exactly this e-mail (pass it normalised, as `Email` makes
    /// it); `None` when none has it. Erased subscribers have no e-mail, so are never found.
    async fn subscriber_by_email(
        &self,
        team: TeamId,
        email: &str,
    ) -> StoreResult<Option<Subscriber>>;
    /// Atomically creates the subscriber for `input.email` (`Subscriber::identified`) or
    /// merges into the existing one (`Subscriber::merge_identify`). Returns it and whether
    /// it was created. Safe under concurrent calls for one e-mail.
    async fn identify(
        &self,
        team: TeamId,
        input: &Identify,
        now: Timestamp,
    ) -> StoreResult<(Subscriber, bool)>;
    /// Bumps the token version so every token issued before is refused; the new version,
    /// or `None` when the subscriber does not exist.
    async fn revoke_tokens(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<Option<i64>>;

    // Team administration (issue 6). Deleted subscribers stay as rows (their comments and
    // votes keep an author) but these methods treat them as gone.
    /// The subscriber unless deleted.
    async fn live_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<Subscriber>>;
    /// One page of the team's live subscribers and their total, in two statements.
    async fn list_subscribers(
        &self,
        team: TeamId,
        query: &SubscriberQuery,
    ) -> StoreResult<Paged<Subscriber>>;
    /// Applies the patch (`Subscriber::apply_patch`) to the stored subscriber atomically; the
    /// result, or `None` when it is gone or deleted.
    async fn update_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        patch: &SubscriberPatch,
        now: Timestamp,
    ) -> StoreResult<Option<Subscriber>>;
    /// Erases the subscriber (`Subscriber::erase`) and marks it deleted; its e-mail is free
    /// for a new subscriber. `false` when it is gone or already deleted.
    async fn erase_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<bool>;
}
