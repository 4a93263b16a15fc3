//! Team administration (issue 6) in memory: users with the last-owner rule, a team's keys
//! and their use stamps, and the subscriber list, update and erase. The trait impls in
//! `lib.rs` delegate here; the store's one lock makes each of these atomic.

use std::cmp::Ordering;

use sounding_domain::{
    access::{Role, TeamUser},
    api_key::ApiKey,
    ids::{ApiKeyId, SubscriberId, TeamId, UserId},
    page::Paged,
    ports::{Conflict, StoreError, StoreResult},
    subscriber::Subscriber,
    team_admin::{self, SubscriberPatch, SubscriberQuery, SubscriberSort},
    timestamp::Timestamp,
};

use crate::State;

impl State {
    pub(crate) fn insert_user(&mut self, user: &TeamUser) -> StoreResult<()> {
        if self
            .users
            .values()
            .any(|u| u.team_id == user.team_id && u.email == user.email)
        {
            return Err(StoreError::Conflict(Conflict::UserEmail));
        }
        self.users.insert(user.id, user.clone());
        Ok(())
    }

    pub(crate) fn team_user(&self, team: TeamId, id: UserId) -> Option<TeamUser> {
        self.users.get(&id).filter(|u| u.team_id == team).cloned()
    }

    /// Whether giving `id` the role `after` (`None`: removing them) leaves the team no owner.
    fn leaves_no_owner(&self, team: TeamId, id: UserId, after: Option<Role>) -> bool {
        let owners: Vec<UserId> = self
            .users
            .values()
            .filter(|u| u.team_id == team && u.role == Role::Owner)
            .map(|u| u.id)
            .collect();
        team_admin::would_leave_no_owner(&owners, &id, after)
    }

    pub(crate) fn set_user_role(
        &mut self,
        team: TeamId,
        id: UserId,
        role: Role,
    ) -> StoreResult<Option<TeamUser>> {
        if self.team_user(team, id).is_none() {
            return Ok(None);
        }
        if self.leaves_no_owner(team, id, Some(role)) {
            return Err(StoreError::Conflict(Conflict::LastOwner));
        }
        Ok(self.users.get_mut(&id).map(|u| {
            u.role = role;
            u.clone()
        }))
    }

    pub(crate) fn delete_user(&mut self, team: TeamId, id: UserId) -> StoreResult<bool> {
        if self.team_user(team, id).is_none() {
            return Ok(false);
        }
        if self.leaves_no_owner(team, id, None) {
            return Err(StoreError::Conflict(Conflict::LastOwner));
        }
        self.keys.retain(|_, k| k.user_id != id);
        self.users.remove(&id);
        Ok(true)
    }

    pub(crate) fn team_api_keys(&self, team: TeamId) -> Vec<ApiKey> {
        let mut keys: Vec<ApiKey> = self
            .keys
            .values()
            .filter(|k| k.team_id == team)
            .cloned()
            .collect();
        keys.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        keys
    }

    pub(crate) fn delete_team_api_key(&mut self, team: TeamId, id: ApiKeyId) -> bool {
        if self.keys.get(&id).is_some_and(|k| k.team_id == team) {
            self.keys.remove(&id);
            true
        } else {
            false
        }
    }

    pub(crate) fn touch_api_key(&mut self, id: ApiKeyId, now: Timestamp, resolution: i64) {
        if let Some(key) = self.keys.get_mut(&id) {
            let due = match key.last_used_at {
                None => true,
                Some(at) => at <= now.plus_seconds(-resolution),
            };
            if due {
                key.last_used_at = Some(now);
            }
        }
    }

    fn live_subscriber_mut(&mut self, team: TeamId, id: SubscriberId) -> Option<&mut Subscriber> {
        if self.deleted_subscribers.contains(&id) {
            return None;
        }
        self.subscribers.get_mut(&id).filter(|s| s.team_id == team)
    }

    pub(crate) fn live_subscriber(&self, team: TeamId, id: SubscriberId) -> Option<Subscriber> {
        if self.deleted_subscribers.contains(&id) {
            return None;
        }
        self.subscribers
            .get(&id)
            .filter(|s| s.team_id == team)
            .cloned()
    }

    pub(crate) fn list_subscribers(
        &self,
        team: TeamId,
        query: &SubscriberQuery,
    ) -> Paged<Subscriber> {
        let mut found: Vec<&Subscriber> = self
            .subscribers
            .values()
            .filter(|s| {
                s.team_id == team && !self.deleted_subscribers.contains(&s.id) && query.matches(s)
            })
            .collect();
        found.sort_by(|a, b| subscriber_order(query.sort, a, b));
        let total = i64::try_from(found.len()).unwrap_or(i64::MAX);
        let offset = usize::try_from(query.page.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(query.page.limit).unwrap_or(0);
        Paged {
            items: found
                .into_iter()
                .skip(offset)
                .take(limit)
                .cloned()
                .collect(),
            total,
            page: query.page,
        }
    }

    pub(crate) fn update_subscriber(
        &mut self,
        team: TeamId,
        id: SubscriberId,
        patch: &SubscriberPatch,
        now: Timestamp,
    ) -> StoreResult<Option<Subscriber>> {
        let Some(subscriber) = self.live_subscriber_mut(team, id) else {
            return Ok(None);
        };
        subscriber
            .apply_patch(patch, now)
            .map_err(StoreError::Refused)?;
        Ok(Some(subscriber.clone()))
    }

    pub(crate) fn erase_subscriber(
        &mut self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> bool {
        match self.live_subscriber_mut(team, id) {
            Some(subscriber) => {
                subscriber.erase(now);
                self.deleted_subscribers.insert(id);
                true
            }
            None => false,
        }
    }
}

/// The order of `subscribers.list` (the SQL adapters order the same way). Ties by id: newest
/// first for the newest-first orders (ids are time-ordered, so two subscribers made in one
/// millisecond still list in the order they were made), ascending for the others.
fn subscriber_order(sort: SubscriberSort, a: &Subscriber, b: &Subscriber) -> Ordering {
    let by_id = a.id.cmp(&b.id);
    match sort {
        SubscriberSort::CreatedAt => b.created_at.cmp(&a.created_at).then(by_id.reverse()),
        SubscriberSort::LastUpdated => b.last_updated.cmp(&a.last_updated).then(by_id.reverse()),
        SubscriberSort::Name => a
            .name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then(by_id),
        SubscriberSort::Email => match (&a.email, &b.email) {
            (Some(x), Some(y)) => x.as_str().cmp(y.as_str()),
            (x, y) => x.is_none().cmp(&y.is_none()),
        }
        .then(by_id),
        SubscriberSort::Mmr => match (a.attributes.mmr, b.attributes.mmr) {
            (Some(x), Some(y)) => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
            (x, y) => x.is_none().cmp(&y.is_none()),
        }
        .then(by_id),
    }
}
