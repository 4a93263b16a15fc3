//! Webhook subscriptions and their durable deliveries. Subscriptions are plain rows; the
//! deliveries are made from the outbox by `fan_out` and worked through by leases
//! (`deliveries.rs`), each operation one `write_tx`. Listing is in `list.rs`, retention in
//! `prune.rs`.

mod deliveries;
mod list;
mod prune;
mod rows;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    ids::{DeliveryId, TeamId, WebhookId},
    page::Paged,
    ports::{StoreResult, WebhookStore},
    retention::Pruned,
    timestamp::Timestamp,
    webhook::{
        AttemptRecord, Delivery, DeliveryQuery, LeaseRequest, LeasedDelivery, WebhookSubscription,
    },
};
use time::OffsetDateTime;

use self::{
    deliveries::{fail_pending, UNSUBSCRIBED},
    rows::WebhookRow,
};
use super::to_db_time;
use crate::{
    connection::per_backend,
    schema::webhooks,
    tx::{worker_statement, worker_tx, worker_write, write_tx},
    DieselStore, Engine,
};

#[async_trait]
impl WebhookStore for DieselStore {
    async fn insert_webhook(
        &self,
        webhook: &WebhookSubscription,
    ) -> StoreResult<WebhookSubscription> {
        let row = WebhookRow::from_domain(webhook);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Insert-if-absent on the unique (team_id, target_url, event), then read what
                // is there: a concurrent identical insert makes ours a no-op (PostgreSQL waits
                // for it to commit), so both callers get the one stored subscription.
                per_backend!(conn, |inner| diesel::insert_into(webhooks::table)
                    .values(&row)
                    .on_conflict_do_nothing()
                    .execute(inner))?;
                webhooks::table
                    .filter(webhooks::team_id.eq(&row.team_id))
                    .filter(webhooks::target_url.eq(&row.target_url))
                    .filter(webhooks::event.eq(&row.event))
                    .select(WebhookRow::as_select())
                    .get_result(conn)?
                    .into_domain()
            })
        })
        .await
    }

    async fn webhooks(&self, team: TeamId) -> StoreResult<Vec<WebhookSubscription>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            webhooks::table
                .filter(webhooks::team_id.eq(team))
                .order((webhooks::created_at.asc(), webhooks::id.asc()))
                .select(WebhookRow::as_select())
                .load(conn)?
                .into_iter()
                .map(WebhookRow::into_domain)
                .collect()
        })
        .await
    }

    async fn webhook(
        &self,
        team: TeamId,
        id: WebhookId,
    ) -> StoreResult<Option<WebhookSubscription>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            webhooks::table
                .filter(webhooks::id.eq(id))
                .filter(webhooks::team_id.eq(team))
                .select(WebhookRow::as_select())
                .get_result(conn)
                .optional()?
                .map(WebhookRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn delete_webhook(&self, team: TeamId, id: WebhookId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        // When the deliveries were failed, for `updated_at`; the port has no clock.
        let now = to_db_time(Timestamp::from_offset(OffsetDateTime::now_utc()));
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // The subscription first, then its deliveries: the order every writer takes
                // them in (see `deliveries.rs`).
                let deleted = diesel::delete(
                    webhooks::table
                        .filter(webhooks::id.eq(&id))
                        .filter(webhooks::team_id.eq(&team)),
                )
                .execute(conn)?;
                if deleted == 0 {
                    return Ok(false);
                }
                fail_pending(conn, &id, UNSUBSCRIBED, now)?;
                Ok(true)
            })
        })
        .await
    }

    async fn fan_out(&self, now: Timestamp, limit: i64) -> StoreResult<usize> {
        // As `lease_deliveries`' check: one statement, beside the writer, no transaction.
        if limit <= 0 || !self.run_read_one(deliveries::any_waiting).await? {
            return Ok(0);
        }
        self.run(move |conn| worker_tx(conn, |conn| deliveries::fan_out(conn, now, limit)))
            .await
    }

    async fn lease_deliveries(&self, request: &LeaseRequest) -> StoreResult<Vec<LeasedDelivery>> {
        let request = request.clone();
        if self.engine() == Engine::Postgres {
            // One statement, which writes nothing when nothing is due: no check first.
            return self
                .run(move |conn| {
                    worker_statement(conn, |conn| {
                        deliveries::lease_in_one_statement(conn, &request)
                    })
                })
                .await;
        }
        // On SQLite the lease's write transaction would queue behind the clients' writes
        // for nothing when nothing is due: a one-statement check first, beside the writer.
        let now = request.now;
        if !self
            .run_read_one(move |conn| deliveries::any_due(conn, now))
            .await?
        {
            return Ok(Vec::new());
        }
        self.run(move |conn| worker_tx(conn, |conn| deliveries::lease(conn, &request)))
            .await
    }

    async fn record_attempt(
        &self,
        id: DeliveryId,
        owner: &str,
        record: &AttemptRecord,
    ) -> StoreResult<bool> {
        let (id, owner, record) = (id.to_string(), owner.to_owned(), record.clone());
        let one_statement = deliveries::record_is_one_statement(&record);
        self.run(move |conn| {
            worker_write(conn, one_statement, |conn| {
                deliveries::record(conn, &id, &owner, &record)
            })
        })
        .await
    }

    async fn deliveries(
        &self,
        team: TeamId,
        query: &DeliveryQuery,
    ) -> StoreResult<Paged<Delivery>> {
        let (team, query) = (team.to_string(), *query);
        self.run_read(move |conn| list::list(conn, &team, &query))
            .await
    }

    async fn release_leases(&self, owner: &str, ids: &[DeliveryId]) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let owner = owner.to_owned();
        let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
        let one_statement = deliveries::release_is_one_statement(&ids);
        self.run(move |conn| {
            worker_write(conn, one_statement, |conn| {
                deliveries::release(conn, &owner, &ids)
            })
        })
        .await
    }

    async fn redeliver(&self, team: TeamId, id: DeliveryId, now: Timestamp) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| write_tx(conn, |conn| deliveries::redeliver(conn, &team, &id, now)))
            .await
    }

    async fn pending_deliveries(&self, at_most: i64) -> StoreResult<i64> {
        self.run_read_one(move |conn| deliveries::pending(conn, at_most))
            .await
    }

    async fn prune_finished(&self, before: Timestamp, limit: i64) -> StoreResult<Pruned> {
        // The worker's own bookkeeping: a lost commit only leaves rows for the next prune.
        self.run(move |conn| worker_tx(conn, |conn| prune::prune(conn, before, limit)))
            .await
    }
}
