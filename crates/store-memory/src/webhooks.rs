//! `WebhookStore` in memory: subscriptions, and the deliveries fan-out makes of outbox events.
//! Each outbox event's fan-out time is kept in a list beside the outbox (`None` while it
//! waits); fan-out takes the oldest waiting events. Leases and the time of
//! the last change live beside each delivery, out of the `Delivery` the port hands out.
//! Retention prunes with the domain's rules (`sounding_domain::retention`).

use std::collections::HashSet;

use async_trait::async_trait;
use sounding_domain::{
    ids::{DeliveryId, EventId, TeamId, WebhookId},
    page::Paged,
    ports::{Cause, Conflict, StoreError, StoreResult, WebhookStore},
    retention::{delivery_is_prunable, event_is_prunable, Pruned},
    timestamp::Timestamp,
    webhook::{
        AttemptRecord, AttemptResult, Delivery, DeliveryQuery, DeliveryStatus, LeaseRequest,
        LeasedDelivery, WebhookSubscription,
    },
};
use time::OffsetDateTime;

use crate::{feedback::page_of, MemoryStore, State};

/// Why the deliveries of a removed subscription failed.
const UNSUBSCRIBED: &str = "unsubscribed";
/// Why the deliveries of a subscription whose target answered 410 Gone failed.
const GONE: &str = "unsubscribed: the target answered 410 Gone";

/// A stored delivery, its lease, and when it last changed (what retention goes by).
pub(crate) struct DeliveryRow {
    delivery: Delivery,
    lease_owner: Option<String>,
    lease_until: Option<Timestamp>,
    updated_at: Timestamp,
}

impl DeliveryRow {
    fn release(&mut self) {
        self.lease_owner = None;
        self.lease_until = None;
    }

    /// Ends the delivery `failed` for `why` at `at` without another attempt.
    fn fail(&mut self, why: &str, at: Timestamp) {
        self.delivery.status = DeliveryStatus::Failed;
        self.delivery.last_error = Some(why.to_owned());
        self.delivery.next_attempt_at = None;
        self.updated_at = at;
        self.release();
    }

    /// Leased to a worker whose lease has not ended by `now`.
    fn lease_live(&self, now: Timestamp) -> bool {
        self.lease_owner.is_some() && self.lease_until.is_some_and(|until| until > now)
    }

    /// Pending, due by `now`, and with no lease or an expired one.
    fn leasable(&self, now: Timestamp) -> bool {
        self.delivery.status == DeliveryStatus::Pending
            && self.delivery.next_attempt_at.is_some_and(|at| at <= now)
            && self.lease_until.is_none_or(|until| until <= now)
    }
}

impl State {
    fn team_webhook(&self, team: TeamId, id: WebhookId) -> Option<&WebhookSubscription> {
        self.webhooks.get(&id).filter(|w| w.team_id == team)
    }

    /// Removes the subscription and fails its pending deliveries for `why` at `at`.
    fn unsubscribe(&mut self, id: WebhookId, why: &str, at: Timestamp) {
        self.webhooks.remove(&id);
        for row in self.deliveries.values_mut() {
            if row.delivery.webhook_id == id && row.delivery.status == DeliveryStatus::Pending {
                row.fail(why, at);
            }
        }
    }

    fn event_body(&self, id: EventId) -> StoreResult<String> {
        let event =
            self.outbox.iter().find(|e| e.id == id).ok_or_else(|| {
                StoreError::Failure(format!("delivery of missing event {id}").into())
            })?;
        serde_json::to_string(&event.payload)
            .map_err(|e| StoreError::Failure(Cause::context("event payload", e)))
    }
}

#[async_trait]
impl WebhookStore for MemoryStore {
    async fn insert_webhook(
        &self,
        webhook: &WebhookSubscription,
    ) -> StoreResult<WebhookSubscription> {
        let mut state = self.state();
        let existing = state.webhooks.values().find(|w| {
            w.team_id == webhook.team_id
                && w.target_url == webhook.target_url
                && w.event == webhook.event
        });
        if let Some(existing) = existing {
            return Ok(existing.clone());
        }
        state.webhooks.insert(webhook.id, webhook.clone());
        Ok(webhook.clone())
    }

    async fn webhooks(&self, team: TeamId) -> StoreResult<Vec<WebhookSubscription>> {
        let mut webhooks: Vec<WebhookSubscription> = self
            .state()
            .webhooks
            .values()
            .filter(|w| w.team_id == team)
            .cloned()
            .collect();
        webhooks.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(webhooks)
    }

    async fn webhook(
        &self,
        team: TeamId,
        id: WebhookId,
    ) -> StoreResult<Option<WebhookSubscription>> {
        Ok(self.state().team_webhook(team, id).cloned())
    }

    async fn delete_webhook(&self, team: TeamId, id: WebhookId) -> StoreResult<bool> {
        let mut s = self.state();
        if s.team_webhook(team, id).is_none() {
            return Ok(false);
        }
        // When the deliveries were failed, for retention; the port has no clock (as in the
        // diesel store).
        s.unsubscribe(
            id,
            UNSUBSCRIBED,
            Timestamp::from_offset(OffsetDateTime::now_utc()),
        );
        Ok(true)
    }

    async fn fan_out(&self, now: Timestamp, limit: i64) -> StoreResult<usize> {
        let mut s = self.state();
        let take = usize::try_from(limit.max(0)).unwrap_or(usize::MAX);
        let waiting: Vec<usize> = (0..s.outbox.len())
            .filter(|&index| s.dispatched_at[index].is_none())
            .take(take)
            .collect();
        let mut existing: HashSet<(EventId, WebhookId)> = s
            .deliveries
            .values()
            .map(|row| (row.delivery.event_id, row.delivery.webhook_id))
            .collect();
        let mut new = Vec::new();
        for event in waiting.iter().map(|&index| &s.outbox[index]) {
            let mut subscribers: Vec<&WebhookSubscription> = s
                .webhooks
                .values()
                .filter(|w| w.wants(event.team_id, &event.kind))
                .collect();
            subscribers.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
            for webhook in subscribers {
                if !existing.insert((event.id, webhook.id)) {
                    continue;
                }
                new.push(Delivery::fanned_out(
                    DeliveryId::new(),
                    (event.id, &event.kind),
                    webhook,
                    now,
                ));
            }
        }
        for delivery in new {
            s.deliveries.insert(
                delivery.id,
                DeliveryRow {
                    delivery,
                    lease_owner: None,
                    lease_until: None,
                    updated_at: now,
                },
            );
        }
        for &index in &waiting {
            s.dispatched_at[index] = Some(now);
        }
        Ok(waiting.len())
    }

    async fn lease_deliveries(&self, request: &LeaseRequest) -> StoreResult<Vec<LeasedDelivery>> {
        let (owner, now, limit) = (request.owner.as_str(), request.now, request.limit);
        let mut s = self.state();
        let mut due: Vec<(Timestamp, DeliveryId)> = s
            .deliveries
            .values()
            .filter(|row| row.leasable(now))
            .map(|row| (row.delivery.next_attempt_at.unwrap_or(now), row.delivery.id))
            .collect();
        due.sort();
        due.truncate(usize::try_from(limit.max(0)).unwrap_or(usize::MAX));
        let until = request.until();
        let mut leased = Vec::with_capacity(due.len());
        for (_, id) in due {
            let Some(row) = s.deliveries.get(&id) else {
                continue;
            };
            let (webhook_id, event_id) = (row.delivery.webhook_id, row.delivery.event_id);
            let Some(secret) = s.webhooks.get(&webhook_id).map(|w| w.secret.clone()) else {
                if let Some(row) = s.deliveries.get_mut(&id) {
                    row.fail(UNSUBSCRIBED, now);
                }
                continue;
            };
            let body = s.event_body(event_id)?;
            leased.push((id, body, secret));
        }
        // Every body was found: only now take the leases, so a failure writes nothing.
        Ok(leased
            .into_iter()
            .filter_map(|(id, body, secret)| {
                let row = s.deliveries.get_mut(&id)?;
                row.lease_owner = Some(owner.to_owned());
                row.lease_until = Some(until);
                Some(LeasedDelivery {
                    delivery: row.delivery.clone(),
                    body,
                    secret,
                })
            })
            .collect())
    }

    async fn record_attempt(
        &self,
        id: DeliveryId,
        owner: &str,
        record: &AttemptRecord,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(row) = s.deliveries.get_mut(&id).filter(|row| {
            row.delivery.status == DeliveryStatus::Pending
                && row.lease_owner.as_deref() == Some(owner)
        }) else {
            return Ok(false);
        };
        let d = &mut row.delivery;
        d.attempts += 1;
        d.last_attempt_at = Some(record.at);
        d.first_attempt_at = d.first_attempt_at.or(Some(record.at));
        d.last_status_code = record.outcome.status.map(i64::from);
        d.last_error = record.outcome.error.clone();
        d.last_duration_ms =
            Some(i64::try_from(record.outcome.duration.as_millis()).unwrap_or(i64::MAX));
        let mut unsubscribe = None;
        match record.result {
            AttemptResult::Delivered => {
                d.status = DeliveryStatus::Delivered;
                d.next_attempt_at = None;
            }
            AttemptResult::Retry { at } => {
                d.status = DeliveryStatus::Pending;
                d.next_attempt_at = Some(at);
            }
            AttemptResult::Failed { unsubscribe: gone } => {
                d.status = DeliveryStatus::Failed;
                d.next_attempt_at = None;
                if gone {
                    unsubscribe = Some(d.webhook_id);
                }
            }
        }
        row.updated_at = record.at;
        row.release();
        if let Some(webhook) = unsubscribe {
            s.unsubscribe(webhook, GONE, record.at);
        }
        Ok(true)
    }

    async fn deliveries(
        &self,
        team: TeamId,
        query: &DeliveryQuery,
    ) -> StoreResult<Paged<Delivery>> {
        let s = self.state();
        let mut selected: Vec<&Delivery> = s
            .deliveries
            .values()
            .map(|row| &row.delivery)
            .filter(|d| {
                d.team_id == team
                    && query.webhook_id.is_none_or(|w| d.webhook_id == w)
                    && query.status.is_none_or(|st| d.status == st)
            })
            .collect();
        selected.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(page_of(selected.into_iter().cloned().collect(), query.page))
    }

    async fn release_leases(&self, owner: &str, ids: &[DeliveryId]) -> StoreResult<()> {
        let mut s = self.state();
        for id in ids {
            if let Some(row) = s.deliveries.get_mut(id).filter(|row| {
                row.delivery.status == DeliveryStatus::Pending
                    && row.lease_owner.as_deref() == Some(owner)
            }) {
                row.release();
            }
        }
        Ok(())
    }

    async fn pending_deliveries(&self, at_most: i64) -> StoreResult<i64> {
        let s = self.state();
        let pending = s
            .deliveries
            .values()
            .filter(|row| row.delivery.status == DeliveryStatus::Pending)
            .take(usize::try_from(at_most).unwrap_or(0))
            .count();
        Ok(i64::try_from(pending).unwrap_or(i64::MAX))
    }

    async fn redeliver(&self, team: TeamId, id: DeliveryId, now: Timestamp) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(webhook) = s
            .deliveries
            .get(&id)
            .filter(|row| row.delivery.team_id == team)
            .map(|row| row.delivery.webhook_id)
        else {
            return Ok(false);
        };
        if s.team_webhook(team, webhook).is_none() {
            return Ok(false);
        }
        let Some(row) = s.deliveries.get_mut(&id) else {
            return Ok(false);
        };
        // An attempt under way is not doubled; an expired lease is taken over.
        if row.lease_live(now) {
            return Err(StoreError::Conflict(Conflict::DeliveryInFlight));
        }
        row.delivery.status = DeliveryStatus::Pending;
        row.delivery.attempts = 0;
        row.delivery.first_attempt_at = None;
        row.delivery.next_attempt_at = Some(now);
        row.updated_at = now;
        row.release();
        Ok(true)
    }

    async fn prune_finished(&self, before: Timestamp, limit: i64) -> StoreResult<Pruned> {
        let mut s = self.state();
        let limit = usize::try_from(limit.max(0)).unwrap_or(usize::MAX);
        // The oldest finished deliveries first, as the diesel store takes them.
        let mut finished: Vec<(Timestamp, DeliveryId)> = s
            .deliveries
            .values()
            .filter(|row| delivery_is_prunable(row.delivery.status, row.updated_at, before))
            .map(|row| (row.updated_at, row.delivery.id))
            .collect();
        finished.sort();
        finished.truncate(limit);
        for (_, id) in &finished {
            s.deliveries.remove(id);
        }

        let with_deliveries: HashSet<EventId> = s
            .deliveries
            .values()
            .map(|row| row.delivery.event_id)
            .collect();
        let mut prunable: Vec<(Timestamp, usize)> = s
            .dispatched_at
            .iter()
            .zip(&s.outbox)
            .enumerate()
            .filter(|(_, (at, event))| {
                event_is_prunable(**at, with_deliveries.contains(&event.id), before)
            })
            .filter_map(|(index, (at, _))| Some(((*at)?, index)))
            .collect();
        prunable.sort();
        prunable.truncate(limit);
        let mut gone: Vec<usize> = prunable.into_iter().map(|(_, index)| index).collect();
        // Back to front, so the indexes still to remove stay valid.
        gone.sort_unstable_by(|a, b| b.cmp(a));
        for &index in &gone {
            s.outbox.remove(index);
            s.dispatched_at.remove(index);
        }
        Ok(Pruned {
            deliveries: finished.len(),
            events: gone.len(),
        })
    }
}
