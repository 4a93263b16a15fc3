//! The delivery machinery: fan-out from the outbox, leases, attempts and redelivery. Each
//! function runs inside the caller's transaction (`write_tx`, `worker_tx`), or alone where it
//! is one statement on PostgreSQL (`worker_statement`: the lease, most records, a release).
//!
//! On PostgreSQL several instances run these at once, so the rows are taken in one order
//! everywhere — outbox event, then subscription, then delivery — and nothing waits for a lock
//! while holding a later one:
//!
//! - `fan_out` takes its events `FOR UPDATE SKIP LOCKED` (two instances take different
//!   batches) and their subscriptions `FOR KEY SHARE` (a subscription cannot be deleted while
//!   deliveries to it are being created: the delete waits, then fails them);
//! - `lease` takes its deliveries `FOR UPDATE SKIP LOCKED` (two workers take different ones)
//!   and reads the subscriptions without a lock;
//! - `record` locks the subscription `FOR UPDATE` before the delivery when it is about to
//!   delete it (410 Gone), and `redeliver` `FOR KEY SHARE` before locking the delivery
//!   `FOR UPDATE` to check its lease, as `delete_webhook` deletes the subscription before
//!   failing its deliveries;
//! - `release` locks only the deliveries it gives back (one `UPDATE`), which a worker's lease
//!   skips while they are locked.
//!
//! On SQLite `BEGIN IMMEDIATE` serializes every writer, which is all they need there.

use std::collections::HashMap;

use diesel::{
    pg::Pg,
    prelude::*,
    query_builder::{AstPass, QueryFragment, QueryId},
    sql_types::{Array, BigInt, Nullable, Text, Timestamp as SqlTimestamp},
};
use sounding_domain::{
    ids::DeliveryId,
    ports::Conflict,
    timestamp::Timestamp,
    webhook::{AttemptRecord, AttemptResult, DeliveryStatus, LeaseRequest, LeasedDelivery},
};
use time::PrimitiveDateTime;

use super::{
    super::to_db_time,
    rows::{DeliveryRow, PendingRow, DELIVERY_COLUMNS},
};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    one_of::distinct,
    raw_sql::{Param, RawSql},
    repos::{
        lock::{lock_row, Lock},
        paging::count,
    },
    schema::{outbox_events, webhook_deliveries, webhooks},
};

diesel::define_sql_function! {
    /// `COALESCE` of two nullable timestamps.
    #[sql_name = "COALESCE"]
    fn coalesce_time(
        first: Nullable<SqlTimestamp>,
        second: Nullable<SqlTimestamp>,
    ) -> Nullable<SqlTimestamp>;
}

/// `last_error` of a delivery whose subscription was deleted before it was done.
pub(super) const UNSUBSCRIBED: &str = "unsubscribed";
/// `last_error` of the other deliveries of a subscription whose target answered 410 Gone.
const GONE: &str = "unsubscribed: the target answered 410 Gone";
/// `last_error` of a delivery whose event is no longer in the outbox (nothing to send).
const EVENT_MISSING: &str = "the event is no longer in the outbox";

/// Rows per multi-row `INSERT`: 18 parameters each stays far below both engines' limits.
const INSERT_CHUNK: usize = 500;
/// Values per `IN (…)` list.
const IN_CHUNK: usize = 1000;

/// Whether the subscription exists, its row locked as asked on PostgreSQL.
pub(super) fn lock_webhook(conn: &mut DbConnection, id: &str, lock: Lock) -> DbResult<bool> {
    let webhook = || {
        webhooks::table
            .filter(webhooks::id.eq(id))
            .select(webhooks::id)
    };
    let found: Option<String> = lock_row!(conn, webhook(), lock)?;
    Ok(found.is_some())
}

/// What ends a delivery `failed` with `error`: nothing more to attempt, its lease released.
#[derive(AsChangeset)]
#[diesel(table_name = webhook_deliveries, treat_none_as_null = true)]
struct Failed<'a> {
    status: &'a str,
    last_error: Option<&'a str>,
    next_attempt_at: Option<PrimitiveDateTime>,
    lease_owner: Option<&'a str>,
    lease_until: Option<PrimitiveDateTime>,
    updated_at: PrimitiveDateTime,
}

impl<'a> Failed<'a> {
    fn with(error: &'a str, at: PrimitiveDateTime) -> Self {
        Self {
            status: DeliveryStatus::Failed.as_str(),
            last_error: Some(error),
            next_attempt_at: None,
            lease_owner: None,
            lease_until: None,
            updated_at: at,
        }
    }
}

/// Ends the subscription's pending deliveries `failed` with `error`, their leases released.
pub(super) fn fail_pending(
    conn: &mut DbConnection,
    webhook: &str,
    error: &str,
    at: PrimitiveDateTime,
) -> DbResult<usize> {
    Ok(diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::webhook_id.eq(webhook))
            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str())),
    )
    .set(Failed::with(error, at))
    .execute(conn)?)
}

/// Ends the deliveries among `ids` `failed` with `error` instead of leasing them.
fn fail_ids(
    conn: &mut DbConnection,
    ids: &[&str],
    error: &str,
    at: PrimitiveDateTime,
) -> DbResult<()> {
    for chunk in ids.chunks(IN_CHUNK) {
        diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(chunk)))
            .set(Failed::with(error, at))
            .execute(conn)?;
    }
    Ok(())
}

/// An outbox event being fanned out: its columns as `fan_out` selects them.
#[derive(Queryable)]
struct PendingEvent {
    seq: i64,
    id: String,
    team_id: String,
    event: String,
}

/// A subscription an event may fan out to: its columns as `fan_out` selects them.
#[derive(Queryable)]
struct Target {
    id: String,
    team_id: String,
    event: String,
    target_url: String,
}

/// Turns up to `limit` events not yet dispatched (oldest first) into one pending delivery per
/// matching subscription and marks them dispatched. The number of events taken.
pub(super) fn fan_out(conn: &mut DbConnection, now: Timestamp, limit: i64) -> DbResult<usize> {
    if limit <= 0 {
        return Ok(0);
    }
    let now = to_db_time(now);

    // The oldest events not yet fanned out (through `outbox_events_pending_idx`); on
    // PostgreSQL locked, skipping those a concurrent fan-out holds.
    macro_rules! pending {
        () => {
            outbox_events::table
                .filter(outbox_events::dispatched_at.is_null())
                .order(outbox_events::seq.asc())
                .limit(limit)
                .select((
                    outbox_events::seq,
                    outbox_events::id,
                    outbox_events::team_id,
                    outbox_events::event,
                ))
        };
    }
    let batch: Vec<PendingEvent> = match conn {
        DbConnection::Postgresql(inner) => pending!().for_update().skip_locked().load(inner)?,
        DbConnection::Sqlite(inner) => pending!().load(inner)?,
    };
    if batch.is_empty() {
        return Ok(0);
    }

    // Every subscription of the batch's teams to the batch's events, in one query.
    let teams = distinct(batch.iter().map(|e| e.team_id.as_str()));
    let names = distinct(batch.iter().map(|e| e.event.as_str()));
    macro_rules! targets {
        () => {
            webhooks::table
                .filter(webhooks::team_id.eq_any(&teams))
                .filter(webhooks::event.eq_any(&names))
                .order((webhooks::created_at.asc(), webhooks::id.asc()))
                .select((
                    webhooks::id,
                    webhooks::team_id,
                    webhooks::event,
                    webhooks::target_url,
                ))
        };
    }
    let targets: Vec<Target> = match conn {
        DbConnection::Postgresql(inner) => targets!().for_key_share().load(inner)?,
        DbConnection::Sqlite(inner) => targets!().load(inner)?,
    };

    let mut by_kind: HashMap<(&str, &str), Vec<&Target>> = HashMap::new();
    for target in &targets {
        by_kind
            .entry((target.team_id.as_str(), target.event.as_str()))
            .or_default()
            .push(target);
    }
    let rows: Vec<PendingRow> = batch
        .iter()
        .flat_map(|event| {
            let targets = by_kind
                .get(&(event.team_id.as_str(), event.event.as_str()))
                .map_or(&[][..], Vec::as_slice);
            targets.iter().map(move |target| PendingRow {
                id: DeliveryId::new().to_string(),
                team_id: &event.team_id,
                webhook_id: &target.id,
                event_id: &event.id,
                event: &event.event,
                target_url: &target.target_url,
                status: DeliveryStatus::Pending.as_str(),
                attempts: 0,
                next_attempt_at: now,
                created_at: now,
                updated_at: now,
            })
        })
        .collect();
    let seqs: Vec<i64> = batch.iter().map(|e| e.seq).collect();
    match conn {
        DbConnection::Postgresql(inner) => {
            FanOutWrites::new(now, seqs, &rows).execute(inner)?;
        }
        DbConnection::Sqlite(inner) => {
            // Idempotent: an event already fanned out to a subscription keeps its delivery.
            for chunk in rows.chunks(INSERT_CHUNK) {
                diesel::insert_into(webhook_deliveries::table)
                    .values(chunk)
                    .on_conflict((webhook_deliveries::event_id, webhook_deliveries::webhook_id))
                    .do_nothing()
                    .execute(inner)?;
            }
            for chunk in seqs.chunks(IN_CHUNK) {
                diesel::update(outbox_events::table.filter(outbox_events::seq.eq_any(chunk)))
                    .set(outbox_events::dispatched_at.eq(Some(now)))
                    .execute(inner)?;
            }
        }
    }
    Ok(batch.len())
}

/// The fan-out's writes in one PostgreSQL statement: its deliveries, read from arrays
/// (`unnest`, so one prepared text whatever their number), and its events marked dispatched.
/// Idempotent as the steps it replaces: an event already fanned out to a subscription keeps
/// its delivery.
struct FanOutWrites<'a> {
    now: PrimitiveDateTime,
    seqs: Vec<i64>,
    id: Vec<&'a str>,
    team_id: Vec<&'a str>,
    webhook_id: Vec<&'a str>,
    event_id: Vec<&'a str>,
    event: Vec<&'a str>,
    target_url: Vec<&'a str>,
}

impl<'a> FanOutWrites<'a> {
    fn new(now: PrimitiveDateTime, seqs: Vec<i64>, rows: &'a [PendingRow<'a>]) -> Self {
        Self {
            now,
            seqs,
            id: rows.iter().map(|r| r.id.as_str()).collect(),
            team_id: rows.iter().map(|r| r.team_id).collect(),
            webhook_id: rows.iter().map(|r| r.webhook_id).collect(),
            event_id: rows.iter().map(|r| r.event_id).collect(),
            event: rows.iter().map(|r| r.event).collect(),
            target_url: rows.iter().map(|r| r.target_url).collect(),
        }
    }
}

impl QueryFragment<Pg> for FanOutWrites<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH marked AS (UPDATE outbox_events SET dispatched_at = ");
        out.push_bind_param::<SqlTimestamp, _>(&self.now)?;
        out.push_sql(" WHERE seq = ANY(");
        out.push_bind_param::<Array<BigInt>, _>(&self.seqs)?;
        out.push_sql(
            ")) INSERT INTO webhook_deliveries (id, team_id, webhook_id, event_id, event, \
             target_url, status, attempts, next_attempt_at, created_at, updated_at) \
             SELECT t.id, t.team_id, t.webhook_id, t.event_id, t.event, t.target_url, ",
        );
        out.push_bind_param::<Text, _>(DeliveryStatus::Pending.as_str())?;
        out.push_sql(", 0, ");
        out.push_bind_param::<SqlTimestamp, _>(&self.now)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlTimestamp, _>(&self.now)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlTimestamp, _>(&self.now)?;
        out.push_sql(" FROM unnest(");
        for (i, column) in [
            &self.id,
            &self.team_id,
            &self.webhook_id,
            &self.event_id,
            &self.event,
            &self.target_url,
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                out.push_sql(", ");
            }
            out.push_bind_param::<Array<Text>, _>(column)?;
        }
        out.push_sql(
            ") AS t(id, team_id, webhook_id, event_id, event, target_url) \
             ON CONFLICT (event_id, webhook_id) DO NOTHING",
        );
        Ok(())
    }
}

impl QueryId for FanOutWrites<'_> {
    type QueryId = ();
    // Kept prepared by its text, which is always the same.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl RunQueryDsl<PgConnection> for FanOutWrites<'_> {}

/// Whether any outbox event waits for fan-out, read without the write lock: events nobody
/// wants are written fanned out (`outbox::selected_from`), so under steady writes of a team
/// without webhooks most passes find none, and `fan_out`'s write transaction (on SQLite
/// queued behind the clients' writes) would be for nothing. Through `outbox_events_pending_idx`.
pub(super) fn any_waiting(conn: &mut DbConnection) -> DbResult<bool> {
    let mut waiting = RawSql::new();
    waiting.push(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM outbox_events \
         WHERE dispatched_at IS NULL LIMIT 1) waiting",
    );
    Ok(count(&waiting, conn)? > 0)
}

/// Whether any delivery is due and free to lease, read without the write lock: under steady
/// writes most passes find none, and on SQLite `lease`'s write transaction would queue behind
/// the clients' writes for nothing. Same condition as `lease`, through the same index.
pub(super) fn any_due(conn: &mut DbConnection, now: Timestamp) -> DbResult<bool> {
    let now = to_db_time(now);
    let mut due = RawSql::new();
    due.push(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries d \
         WHERE d.status = 'pending' AND d.next_attempt_at <= ",
    )
    .param(Param::Timestamp(now))
    .push(" AND (d.lease_until IS NULL OR d.lease_until <= ")
    .param(Param::Timestamp(now))
    .push(") LIMIT 1) due");
    Ok(count(&due, conn)? > 0)
}

/// Pending deliveries, counted no further than `at_most` (through the partial index
/// `webhook_deliveries_due_idx`, which holds exactly the pending ones).
pub(super) fn pending(conn: &mut DbConnection, at_most: i64) -> DbResult<i64> {
    let mut pending = RawSql::new();
    pending
        .push(
            "SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries d \
             WHERE d.status = 'pending' LIMIT ",
        )
        .param(Param::BigInt(at_most.max(0)))
        .push(") pending");
    count(&pending, conn)
}

/// Leases up to `request.limit` due deliveries whose lease is free or expired to the
/// request's owner until `request.until()`, with their bodies and secrets. A delivery whose
/// subscription is gone ends `failed` instead (or whose event is: nothing left to send).
/// SQLite's, in steps inside `BEGIN IMMEDIATE`; PostgreSQL's is `lease_in_one_statement`.
pub(super) fn lease(
    conn: &mut DbConnection,
    request: &LeaseRequest,
) -> DbResult<Vec<LeasedDelivery>> {
    let (owner, limit) = (request.owner.as_str(), request.limit);
    if limit <= 0 {
        return Ok(Vec::new());
    }
    let until = to_db_time(request.until());
    let now = to_db_time(request.now);

    // Through `webhook_deliveries_due_idx` (its predicate spelled as a literal, so PostgreSQL
    // can use the partial index in a generic plan too).
    let mut due = RawSql::new();
    due.push("SELECT ")
        .push(DELIVERY_COLUMNS)
        .push(" FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at <= ")
        .param(Param::Timestamp(now))
        .push(" AND (d.lease_until IS NULL OR d.lease_until <= ")
        .param(Param::Timestamp(now))
        .push(") ORDER BY d.next_attempt_at, d.id LIMIT ")
        .param(Param::BigInt(limit));
    let rows: Vec<DeliveryRow> = due.load(conn)?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }

    let webhook_ids = distinct(rows.iter().map(|r| r.webhook_id.as_str()));
    let secrets: HashMap<String, String> = webhooks::table
        .filter(webhooks::id.eq_any(&webhook_ids))
        .select((webhooks::id, webhooks::secret))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect();
    let event_ids = distinct(rows.iter().map(|r| r.event_id.as_str()));
    let bodies: HashMap<String, String> = outbox_events::table
        .filter(outbox_events::id.eq_any(&event_ids))
        .select((outbox_events::id, outbox_events::payload))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect();

    let unsubscribed: Vec<&str> = rows
        .iter()
        .filter(|r| !secrets.contains_key(&r.webhook_id))
        .map(|r| r.id.as_str())
        .collect();
    let orphaned: Vec<&str> = rows
        .iter()
        .filter(|r| secrets.contains_key(&r.webhook_id) && !bodies.contains_key(&r.event_id))
        .map(|r| r.id.as_str())
        .collect();
    fail_ids(conn, &unsubscribed, UNSUBSCRIBED, now)?;
    fail_ids(conn, &orphaned, EVENT_MISSING, now)?;

    let leased: Vec<&DeliveryRow> = rows
        .iter()
        .filter(|r| secrets.contains_key(&r.webhook_id) && bodies.contains_key(&r.event_id))
        .collect();
    let leased_ids: Vec<&str> = leased.iter().map(|r| r.id.as_str()).collect();
    for chunk in leased_ids.chunks(IN_CHUNK) {
        diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(chunk)))
            .set((
                webhook_deliveries::lease_owner.eq(Some(owner)),
                webhook_deliveries::lease_until.eq(Some(until)),
            ))
            .execute(conn)?;
    }

    let mut out = Vec::with_capacity(leased_ids.len());
    for row in rows {
        let (Some(secret), Some(body)) = (secrets.get(&row.webhook_id), bodies.get(&row.event_id))
        else {
            continue;
        };
        let (secret, body) = (secret.clone(), body.clone());
        out.push(LeasedDelivery {
            delivery: row.into_domain()?,
            body,
            secret,
        });
    }
    Ok(out)
}

/// A leased delivery as `lease_in_one_statement` returns it: the row, its subscription's
/// secret and its event's body.
#[derive(QueryableByName)]
struct LeasedRow {
    #[diesel(embed)]
    delivery: DeliveryRow,
    #[diesel(sql_type = diesel::sql_types::Text)]
    secret: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    payload: String,
}

/// `lease` in one PostgreSQL statement, so that it needs no transaction: one round trip
/// instead of seven, each of which waits for a turn on a busy core (S7's delivery lag). The
/// same steps: the due deliveries locked, skipping those another worker is leasing (a row
/// whose lease was taken and committed meanwhile fails the re-check of the condition); those
/// whose subscription or event is gone ended `failed`; the rest leased, in lease order.
pub(super) fn lease_in_one_statement(
    conn: &mut DbConnection,
    request: &LeaseRequest,
) -> DbResult<Vec<LeasedDelivery>> {
    if request.limit <= 0 {
        return Ok(Vec::new());
    }
    let now = to_db_time(request.now);
    let mut sql = RawSql::new();
    sql.push(
        "WITH due AS (SELECT d.id, d.webhook_id, d.event_id FROM webhook_deliveries d \
         WHERE d.status = 'pending' AND d.next_attempt_at <= ",
    )
    .param(Param::Timestamp(now))
    .push(" AND (d.lease_until IS NULL OR d.lease_until <= ")
    .param(Param::Timestamp(now))
    .push(") ORDER BY d.next_attempt_at, d.id LIMIT ")
    .param(Param::BigInt(request.limit))
    .push(
        " FOR UPDATE SKIP LOCKED), \
         found AS (SELECT due.id, w.id IS NOT NULL AS subscribed, w.secret, \
         e.id IS NOT NULL AS has_event, e.payload FROM due \
         LEFT JOIN webhooks w ON w.id = due.webhook_id \
         LEFT JOIN outbox_events e ON e.id = due.event_id), \
         ended AS (UPDATE webhook_deliveries d SET status = ",
    )
    .text(DeliveryStatus::Failed.as_str())
    .push(", last_error = CASE WHEN f.subscribed THEN ")
    .text(EVENT_MISSING)
    .push(" ELSE ")
    .text(UNSUBSCRIBED)
    .push(" END, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ")
    .param(Param::Timestamp(now))
    .push(
        " FROM found f WHERE d.id = f.id AND NOT (f.subscribed AND f.has_event)), \
         leased AS (UPDATE webhook_deliveries d SET lease_owner = ",
    )
    .text(request.owner.as_str())
    .push(", lease_until = ")
    .param(Param::Timestamp(to_db_time(request.until())))
    .push(" FROM found f WHERE d.id = f.id AND f.subscribed AND f.has_event RETURNING ")
    .push(DELIVERY_COLUMNS)
    .push(", f.secret, f.payload) SELECT * FROM leased d ORDER BY d.next_attempt_at, d.id");
    let rows: Vec<LeasedRow> = sql.load(conn)?;
    rows.into_iter()
        .map(|row| {
            Ok(LeasedDelivery {
                delivery: row.delivery.into_domain()?,
                body: row.payload,
                secret: row.secret,
            })
        })
        .collect()
}

/// Whether `record` writes the attempt in one statement: all but a 410 Gone's, which also
/// deletes the subscription and fails its other deliveries.
pub(super) fn record_is_one_statement(record: &AttemptRecord) -> bool {
    !matches!(record.result, AttemptResult::Failed { unsubscribe: true })
}

/// Records an attempt of the delivery `owner` leases and releases the lease; `false` (nothing
/// written) when it is not pending or not `owner`'s.
pub(super) fn record(
    conn: &mut DbConnection,
    id: &str,
    owner: &str,
    record: &AttemptRecord,
) -> DbResult<bool> {
    let unsubscribe = !record_is_one_statement(record);
    if unsubscribe {
        // The subscription is about to go: lock it before the delivery, in the order
        // `delete_webhook` takes them.
        let webhook = webhook_deliveries::table
            .find(id)
            .select(webhook_deliveries::webhook_id)
            .get_result::<String>(conn)
            .optional()?;
        if let Some(webhook) = webhook {
            lock_webhook(conn, &webhook, Lock::Delete)?;
        }
    }

    let at = to_db_time(record.at);
    let (status, next_attempt_at) = match record.result {
        AttemptResult::Delivered => (DeliveryStatus::Delivered, None),
        AttemptResult::Retry { at } => (DeliveryStatus::Pending, Some(to_db_time(at))),
        AttemptResult::Failed { .. } => (DeliveryStatus::Failed, None),
    };
    let outcome = &record.outcome;
    let duration_ms = i64::try_from(outcome.duration.as_millis()).unwrap_or(i64::MAX);
    let updated = diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(id))
            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()))
            .filter(webhook_deliveries::lease_owner.eq(owner)),
    )
    .set((
        webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
        webhook_deliveries::last_attempt_at.eq(Some(at)),
        webhook_deliveries::first_attempt_at.eq(coalesce_time(
            webhook_deliveries::first_attempt_at,
            Some(at),
        )),
        webhook_deliveries::last_status_code.eq(outcome.status.map(i64::from)),
        webhook_deliveries::last_error.eq(outcome.error.as_deref()),
        webhook_deliveries::last_duration_ms.eq(Some(duration_ms)),
        webhook_deliveries::lease_owner.eq(None::<String>),
        webhook_deliveries::lease_until.eq(None::<PrimitiveDateTime>),
        webhook_deliveries::status.eq(status.as_str()),
        webhook_deliveries::next_attempt_at.eq(next_attempt_at),
        webhook_deliveries::updated_at.eq(at),
    ))
    .returning(webhook_deliveries::webhook_id)
    .get_result::<String>(conn)
    .optional()?;
    let Some(webhook) = updated else {
        return Ok(false);
    };

    if unsubscribe {
        diesel::delete(webhooks::table.filter(webhooks::id.eq(&webhook))).execute(conn)?;
        fail_pending(conn, &webhook, GONE, at)?;
    }
    Ok(true)
}

/// Whether `release` gives the leases back in one statement (a worker leases far fewer than
/// `IN_CHUNK` at once).
pub(super) fn release_is_one_statement(ids: &[String]) -> bool {
    ids.len() <= IN_CHUNK
}

/// Gives back the leases `owner` holds on the pending deliveries among `ids`, without an
/// attempt: due again at once (`next_attempt_at` is kept), for any worker. Other ids are left
/// alone.
pub(super) fn release(conn: &mut DbConnection, owner: &str, ids: &[String]) -> DbResult<()> {
    let ids = distinct(ids.iter().map(String::as_str));
    // One statement for any realistic batch (a worker leases far fewer than `IN_CHUNK`).
    for chunk in ids.chunks(IN_CHUNK) {
        diesel::update(
            webhook_deliveries::table
                .filter(webhook_deliveries::id.eq_any(chunk))
                .filter(webhook_deliveries::lease_owner.eq(owner))
                .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str())),
        )
        .set((
            webhook_deliveries::lease_owner.eq(None::<String>),
            webhook_deliveries::lease_until.eq(None::<PrimitiveDateTime>),
        ))
        .execute(conn)?;
    }
    Ok(())
}

/// Makes the team's delivery pending again, due at `now`, attempts and first attempt reset;
/// `false` when it is not the team's or its subscription is gone. Conflict
/// `delivery_in_flight` (nothing written) while a worker's lease on it is live; an expired
/// lease is taken over.
pub(super) fn redeliver(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    now: Timestamp,
) -> DbResult<bool> {
    let webhook = webhook_deliveries::table
        .filter(webhook_deliveries::id.eq(id))
        .filter(webhook_deliveries::team_id.eq(team))
        .select(webhook_deliveries::webhook_id)
        .get_result::<String>(conn)
        .optional()?;
    let Some(webhook) = webhook else {
        return Ok(false);
    };
    // Held until commit on PostgreSQL: a concurrent delete of the subscription waits, then
    // fails this delivery with the others.
    if !lock_webhook(conn, &webhook, Lock::KeyShare)? {
        return Ok(false);
    }
    let now = to_db_time(now);
    // The delivery next, locked on PostgreSQL until commit: a worker leasing it meanwhile
    // either committed first (its lease is seen here) or skips it.
    macro_rules! lease_of {
        () => {
            webhook_deliveries::table.find(id).select((
                webhook_deliveries::lease_owner,
                webhook_deliveries::lease_until,
            ))
        };
    }
    type LeaseTuple = (Option<String>, Option<PrimitiveDateTime>);
    let lease = match conn {
        DbConnection::Postgresql(inner) => lease_of!().for_update().get_result::<LeaseTuple>(inner),
        DbConnection::Sqlite(inner) => lease_of!().get_result::<LeaseTuple>(inner),
    }
    .optional()?;
    let Some((owner, until)) = lease else {
        return Ok(false);
    };
    if owner.is_some() && until.is_some_and(|until| until > now) {
        return Err(DbError::Conflict(Conflict::DeliveryInFlight));
    }
    diesel::update(webhook_deliveries::table.find(id))
        .set((
            webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()),
            webhook_deliveries::attempts.eq(0),
            webhook_deliveries::first_attempt_at.eq(None::<PrimitiveDateTime>),
            webhook_deliveries::next_attempt_at.eq(Some(now)),
            webhook_deliveries::lease_owner.eq(None::<String>),
            webhook_deliveries::lease_until.eq(None::<PrimitiveDateTime>),
            webhook_deliveries::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(true)
}
