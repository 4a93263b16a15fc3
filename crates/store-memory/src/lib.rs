#![warn(missing_docs)]
//! An in-memory implementation of every Sounding storage port: for tests, for embedding the
//! domain without a database, and for the whole server under `sounding serve --database
//! memory://`. One mutex guards all state, so each port method is atomic, as the database
//! adapters' transactions are, and it answers the same port-contract suite as they do (the
//! same rules, the same conflicts).
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use sounding_domain::{
//!     ports::{SettingsStore, SubscriberStore},
//!     subscriber::Identify,
//!     TeamId, Timestamp,
//! };
//! use sounding_store_memory::MemoryStore;
//!
//! let store = MemoryStore::new();
//! let (team, now) = (TeamId::new(), Timestamp::from_unix_seconds(1_800_000_000).unwrap());
//! let jane = Identify::new(Some("jane@example.com"), None, None, None, None).unwrap();
//! let (first, created) = store.identify(team, &jane, now).await.unwrap();
//! assert!(created);
//! // The same e-mail in the same team is the same subscriber.
//! let (again, created) = store.identify(team, &jane, now).await.unwrap();
//! assert_eq!((again.id, created), (first.id, false));
//!
//! // A setting is written once; later calls read what the first wrote.
//! assert_eq!(store.get_or_init_setting("k", "first").await.unwrap(), "first");
//! assert_eq!(store.get_or_init_setting("k", "second").await.unwrap(), "first");
//! # });
//! ```

mod access;
mod documents;
mod feedback;
mod notifications;
mod reactions;
mod roadmaps;
mod tags;
mod topics;
mod webhooks;

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex, MutexGuard},
};

use async_trait::async_trait;
use sounding_domain::{
    access::{Role, SubscriberSession, TeamUser},
    api_key::{ApiKey, ApiKeyGrant},
    board::{Board, BoardView},
    edit::{self, Blocked, Edit, Edited},
    event::{NewEvent, StoredEvent},
    ids::{
        ApiKeyId, BoardId, DeliveryId, FeedbackId, RoadmapId, StageId, SubscriberId, TeamId,
        TopicId, UserId, WebhookId,
    },
    page::Paged,
    ports::{
        AccessStore, AnswerPlace, AnswerStore, BoardStore, Conflict, OutboxStore, Remembered,
        SettingsStore, StoreError, StoreResult, SubscriberStore, TeamStore,
    },
    roadmap::Roadmap,
    stage::Stage,
    subscriber::{Identify, Subscriber},
    team::Team,
    team_admin::{SubscriberPatch, SubscriberQuery},
    timestamp::Timestamp,
    webhook::WebhookSubscription,
};

#[derive(Default)]
struct State {
    teams: HashMap<TeamId, Team>,
    users: HashMap<UserId, TeamUser>,
    keys: HashMap<ApiKeyId, ApiKey>,
    subscribers: HashMap<SubscriberId, Subscriber>,
    boards: HashMap<BoardId, Board>,
    /// Feedback items, each with its votes, comments and follows (removed with it).
    feedback: HashMap<FeedbackId, feedback::FeedbackRow>,
    roadmaps: HashMap<RoadmapId, Roadmap>,
    stages: HashMap<StageId, Stage>,
    /// Topics, each with its votes, comments, follows and visits (removed with it).
    topics: HashMap<TopicId, topics::TopicRow>,
    /// Events in append order.
    outbox: Vec<StoredEvent>,
    /// When each event of the outbox (same index) was fanned out; `None` while it waits.
    /// An event no subscription wants is written fanned out, as the diesel store does.
    dispatched_at: Vec<Option<Timestamp>>,
    webhooks: HashMap<WebhookId, WebhookSubscription>,
    /// Deliveries, each with its lease (they outlive their subscription).
    deliveries: HashMap<DeliveryId, webhooks::DeliveryRow>,
    settings: HashMap<String, String>,
    /// Subscribers' notifications, in the order they were written.
    notifications: Vec<sounding_domain::notification::Notification>,
    /// Documents, each with its reactions (removed with it).
    documents: HashMap<sounding_domain::ids::DocumentId, documents::DocumentRow>,
    /// Tags; the items carrying one list its id (`feedback::FeedbackRow::tags`).
    tags: HashMap<sounding_domain::ids::TagId, sounding_domain::tag::Tag>,
    /// Subscribers erased by `subscribers.delete`: kept for their comments and votes, gone
    /// for administration.
    deleted_subscribers: HashSet<SubscriberId>,
    /// Called after each change that appended events (`MemoryStore::on_events_committed`).
    events_committed: Option<EventsCommitted>,
}

/// What `MemoryStore::on_events_committed` calls. It runs under the store's lock, so it must
/// neither block nor call the store (which would deadlock); a `tokio::sync::Notify::notify_one`
/// does neither.
pub type EventsCommitted = Arc<dyn Fn() + Send + Sync>;

/// Every storage port in memory: `Arc<MemoryStore>` is a whole `sounding_domain::ports::Store`.
/// Nothing is written anywhere; the data lives as long as the value.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<State>,
}

impl MemoryStore {
    /// An empty store: no team, no data.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `callback` after every change that appended outbox events: the webhook worker's
    /// wake-up call, as `DieselStore::on_events_committed` is on a database.
    pub fn on_events_committed(self, callback: EventsCommitted) -> Self {
        self.state().events_committed = Some(callback);
        self
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-applied change: every method
        // validates before it mutates. So a poisoned lock is still consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl State {
    fn append(&mut self, events: &[NewEvent]) {
        for event in events {
            self.notify_followers(event);
        }
        for e in events {
            let wanted = self
                .webhooks
                .values()
                .any(|w| w.wants(e.team_id, e.kind.as_str()));
            self.dispatched_at.push((!wanted).then_some(e.occurred_at));
            self.outbox.push(StoredEvent {
                id: e.id,
                team_id: e.team_id,
                kind: e.kind.as_str().to_owned(),
                occurred_at: e.occurred_at,
                payload: e.payload.to_value(),
            });
        }
        if let (false, Some(callback)) = (events.is_empty(), &self.events_committed) {
            callback();
        }
    }

    fn board_view(&self, board: &Board) -> BoardView {
        let feedback_count = self
            .feedback
            .values()
            .filter(|row| {
                row.feedback.board_id == Some(board.id) && row.feedback.archived_at.is_none()
            })
            .count();
        BoardView {
            board: board.clone(),
            feedback_count: feedback::count(feedback_count),
        }
    }

    fn slug_taken(&self, team: TeamId, slug: &str, except: Option<BoardId>) -> bool {
        self.boards
            .values()
            .any(|b| b.team_id == team && b.slug == slug && Some(b.id) != except)
    }
}

#[async_trait]
impl TeamStore for MemoryStore {
    async fn any_team(&self) -> StoreResult<bool> {
        Ok(!self.state().teams.is_empty())
    }

    async fn create_team(&self, team: &Team, owner: &TeamUser, key: &ApiKey) -> StoreResult<()> {
        let mut s = self.state();
        if s.teams.values().any(|t| t.subdomain == team.subdomain) {
            return Err(StoreError::Conflict(Conflict::TeamSubdomain));
        }
        s.teams.insert(team.id, team.clone());
        s.users.insert(owner.id, owner.clone());
        s.keys.insert(key.id, key.clone());
        Ok(())
    }

    async fn team(&self, id: TeamId) -> StoreResult<Option<Team>> {
        Ok(self.state().teams.get(&id).cloned())
    }

    async fn team_by_subdomain(&self, subdomain: &str) -> StoreResult<Option<Team>> {
        Ok(self
            .state()
            .teams
            .values()
            .find(|t| t.subdomain == subdomain)
            .cloned())
    }

    async fn edit_team(&self, id: TeamId, edit: Edit<Team>) -> StoreResult<Edited<Team>> {
        let mut s = self.state();
        let found = s.teams.get(&id).cloned();
        edit::run(found, edit, |_, after, events| {
            s.teams.insert(id, after.clone());
            s.append(&events);
            Ok(())
        })
    }
}

#[async_trait]
impl AccessStore for MemoryStore {
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        self.state().keys.insert(key.id, key.clone());
        Ok(())
    }

    async fn api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKeyGrant>> {
        let s = self.state();
        let Some(key) = s.keys.values().find(|k| k.key_hash == key_hash) else {
            return Ok(None);
        };
        Ok(s.users.get(&key.user_id).map(|user| ApiKeyGrant {
            key: key.clone(),
            user_role: user.role,
        }))
    }

    async fn delete_api_key(&self, id: ApiKeyId) -> StoreResult<bool> {
        Ok(self.state().keys.remove(&id).is_some())
    }

    async fn users(&self, team: TeamId) -> StoreResult<Vec<TeamUser>> {
        let mut users: Vec<TeamUser> = self
            .state()
            .users
            .values()
            .filter(|u| u.team_id == team)
            .cloned()
            .collect();
        users.sort_by(|a, b| {
            b.role
                .cmp(&a.role)
                .then(a.created_at.cmp(&b.created_at))
                .then(a.id.cmp(&b.id))
        });
        Ok(users)
    }

    async fn insert_user(&self, user: &TeamUser) -> StoreResult<()> {
        self.state().insert_user(user)
    }

    async fn user(&self, team: TeamId, id: UserId) -> StoreResult<Option<TeamUser>> {
        Ok(self.state().team_user(team, id))
    }

    async fn set_user_role(
        &self,
        team: TeamId,
        id: UserId,
        role: Role,
    ) -> StoreResult<Option<TeamUser>> {
        self.state().set_user_role(team, id, role)
    }

    async fn delete_user(&self, team: TeamId, id: UserId) -> StoreResult<bool> {
        self.state().delete_user(team, id)
    }

    async fn api_keys(&self, team: TeamId) -> StoreResult<Vec<ApiKey>> {
        Ok(self.state().team_api_keys(team))
    }

    async fn delete_team_api_key(&self, team: TeamId, id: ApiKeyId) -> StoreResult<bool> {
        Ok(self.state().delete_team_api_key(team, id))
    }

    async fn touch_api_key(
        &self,
        id: ApiKeyId,
        now: Timestamp,
        resolution_seconds: i64,
    ) -> StoreResult<()> {
        self.state().touch_api_key(id, now, resolution_seconds);
        Ok(())
    }
}

#[async_trait]
impl SubscriberStore for MemoryStore {
    async fn subscriber(&self, team: TeamId, id: SubscriberId) -> StoreResult<Option<Subscriber>> {
        Ok(self
            .state()
            .subscribers
            .get(&id)
            .filter(|s| s.team_id == team)
            .cloned())
    }

    async fn subscriber_session(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<SubscriberSession>> {
        let s = self.state();
        Ok(s.subscribers
            .get(&id)
            .filter(|s| s.team_id == team)
            .map(|subscriber| SubscriberSession {
                is_team_member: s.users.values().any(|u| u.makes_member(subscriber)),
                subscriber: subscriber.clone(),
            }))
    }

    async fn subscriber_by_email(
        &self,
        team: TeamId,
        email: &str,
    ) -> StoreResult<Option<Subscriber>> {
        Ok(self
            .state()
            .subscribers
            .values()
            .find(|s| s.team_id == team && s.email.as_ref().map(|e| e.as_str()) == Some(email))
            .cloned())
    }

    async fn identify(
        &self,
        team: TeamId,
        input: &Identify,
        now: Timestamp,
    ) -> StoreResult<(Subscriber, bool)> {
        let mut s = self.state();
        let existing = s
            .subscribers
            .values_mut()
            .find(|s| s.team_id == team && s.email.as_ref() == Some(&input.email));
        if let Some(subscriber) = existing {
            // Unchanged or not, the result is the subscriber as it now is.
            subscriber
                .merge_identify(input, now)
                .map_err(StoreError::Refused)?;
            return Ok((subscriber.clone(), false));
        }
        let subscriber = Subscriber::identified(team, input, now);
        s.subscribers.insert(subscriber.id, subscriber.clone());
        Ok((subscriber, true))
    }

    async fn revoke_tokens(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<Option<i64>> {
        let mut s = self.state();
        Ok(s.subscribers
            .get_mut(&id)
            .filter(|s| s.team_id == team)
            .map(|subscriber| {
                subscriber.token_version += 1;
                subscriber.last_updated = now;
                subscriber.token_version
            }))
    }

    async fn live_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<Subscriber>> {
        Ok(self.state().live_subscriber(team, id))
    }

    async fn list_subscribers(
        &self,
        team: TeamId,
        query: &SubscriberQuery,
    ) -> StoreResult<Paged<Subscriber>> {
        Ok(self.state().list_subscribers(team, query))
    }

    async fn update_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        patch: &SubscriberPatch,
        now: Timestamp,
    ) -> StoreResult<Option<Subscriber>> {
        self.state().update_subscriber(team, id, patch, now)
    }

    async fn erase_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<bool> {
        Ok(self.state().erase_subscriber(team, id, now))
    }
}

#[async_trait]
impl BoardStore for MemoryStore {
    async fn insert_board(&self, board: &Board) -> StoreResult<()> {
        let mut s = self.state();
        if s.slug_taken(board.team_id, &board.slug, None) {
            return Err(StoreError::Conflict(Conflict::BoardSlug));
        }
        s.boards.insert(board.id, board.clone());
        Ok(())
    }

    async fn boards(&self, team: TeamId, public_only: bool) -> StoreResult<Vec<BoardView>> {
        let s = self.state();
        let mut boards: Vec<&Board> = s
            .boards
            .values()
            .filter(|b| b.team_id == team && (!public_only || b.meta.is_public))
            .collect();
        boards.sort_by(|a, b| {
            a.order
                .cmp(&b.order)
                .then(a.created_at.cmp(&b.created_at))
                .then(a.id.cmp(&b.id))
        });
        Ok(boards.into_iter().map(|b| s.board_view(b)).collect())
    }

    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>> {
        let s = self.state();
        Ok(s.boards
            .get(&id)
            .filter(|b| b.team_id == team)
            .map(|b| s.board_view(b)))
    }

    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool> {
        Ok(self.state().slug_taken(team, slug, None))
    }

    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64> {
        let s = self.state();
        Ok(s.boards
            .values()
            .filter(|b| b.team_id == team)
            .map(|b| b.order)
            .max()
            .unwrap_or(0)
            + 1)
    }

    async fn edit_board(
        &self,
        team: TeamId,
        id: BoardId,
        edit: Edit<BoardView>,
    ) -> StoreResult<Edited<BoardView>> {
        let mut s = self.state();
        let found = s
            .boards
            .get(&id)
            .filter(|b| b.team_id == team)
            .map(|b| s.board_view(b));
        edit::run(found, edit, |_, after, events| {
            if s.slug_taken(team, &after.board.slug, Some(id)) {
                return Err(Blocked::Failed(StoreError::Conflict(Conflict::BoardSlug)));
            }
            s.boards.insert(id, after.board.clone());
            s.append(&events);
            Ok(())
        })
    }

    async fn delete_board(&self, team: TeamId, id: BoardId) -> StoreResult<bool> {
        let mut s = self.state();
        let owned = s.boards.get(&id).is_some_and(|b| b.team_id == team);
        if !owned {
            return Ok(false);
        }
        // Archived feedback still holds the board.
        if s.feedback
            .values()
            .any(|row| row.feedback.board_id == Some(id))
        {
            return Err(StoreError::Conflict(Conflict::BoardNotEmpty));
        }
        s.boards.remove(&id);
        Ok(true)
    }
}

#[async_trait]
impl OutboxStore for MemoryStore {
    async fn append_events(&self, events: &[NewEvent]) -> StoreResult<()> {
        self.state().append(events);
        Ok(())
    }

    async fn events(&self, team: TeamId) -> StoreResult<Vec<StoredEvent>> {
        Ok(self
            .state()
            .outbox
            .iter()
            .filter(|e| e.team_id == team)
            .cloned()
            .collect())
    }
}

#[async_trait]
impl SettingsStore for MemoryStore {
    async fn get_or_init_setting(&self, name: &str, candidate: &str) -> StoreResult<String> {
        Ok(self
            .state()
            .settings
            .entry(name.to_owned())
            .or_insert_with(|| candidate.to_owned())
            .clone())
    }

    async fn ping(&self) -> StoreResult<()> {
        Ok(())
    }
}

/// Remembers no answers: every read here is a lookup in memory already, and a suite that
/// swaps this store in sees every answer made anew.
#[async_trait]
impl AnswerStore for MemoryStore {
    async fn remembered_answer(&self, _key: &[u8]) -> Remembered {
        Remembered::Missing(None)
    }

    fn remember_answer(&self, _place: AnswerPlace, _answer: std::sync::Arc<[u8]>) {}
}
