//! The transactional outbox: events written in the same transaction as the change that caused
//! them (`insert_events`), read back per team in the order they were appended.

use std::cell::Cell;

use async_trait::async_trait;
use diesel::{
    pg::Pg,
    prelude::*,
    query_builder::AstPass,
    sql_types::{Array, BigInt, Text, Timestamp as SqlTimestamp},
};
use sounding_domain::{
    event::{NewEvent, StoredEvent},
    ids::TeamId,
    ports::{OutboxStore, StoreResult},
    timestamp::Timestamp,
};
use time::{OffsetDateTime, PrimitiveDateTime};

use super::{from_db_time, parse_id, parse_json, to_db_time};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{Param, RawSql},
    schema::outbox_events,
    tx::write_tx,
    DieselStore,
};

/// An outbox row's values as its inserts bind them.
struct NewEventRow<'a> {
    id: String,
    team_id: String,
    event: &'a str,
    payload: &'a str,
    occurred_at: PrimitiveDateTime,
    created_at: PrimitiveDateTime,
}

impl<'a> NewEventRow<'a> {
    fn new(event: &'a NewEvent, created_at: PrimitiveDateTime) -> Self {
        Self {
            id: event.id.to_string(),
            team_id: event.team_id.to_string(),
            event: event.kind.as_str(),
            payload: event.payload.as_str(),
            occurred_at: to_db_time(event.occurred_at),
            created_at,
        }
    }
}

/// When an outbox row is written, for the delivery worker's bookkeeping; the port has no clock.
fn written_now() -> PrimitiveDateTime {
    to_db_time(Timestamp::from_offset(OffsetDateTime::now_utc()))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = outbox_events)]
struct EventRow {
    id: String,
    team_id: String,
    event: String,
    payload: String,
    occurred_at: PrimitiveDateTime,
}

impl EventRow {
    fn into_domain(self) -> DbResult<StoredEvent> {
        Ok(StoredEvent {
            id: parse_id("outbox_events.id", &self.id)?,
            team_id: parse_id("outbox_events.team_id", &self.team_id)?,
            kind: self.event,
            occurred_at: from_db_time(self.occurred_at),
            payload: parse_json("outbox_events.payload", &self.payload)?,
        })
    }
}

thread_local! {
    /// Whether the operation running on this thread (`noting_events`) wrote outbox events.
    static WROTE_EVENTS: Cell<bool> = const { Cell::new(false) };
}

/// Runs one store operation and says whether it wrote outbox events (`DieselStore::run`).
pub(crate) fn noting_events<T>(operation: impl FnOnce() -> T) -> (T, bool) {
    WROTE_EVENTS.with(|wrote| wrote.set(false));
    let result = operation();
    (result, WROTE_EVENTS.with(|wrote| wrote.replace(false)))
}

/// The columns every outbox insert writes, in the order of [`selected_from`]'s list.
const INSERTED_COLUMNS: &str =
    "id, team_id, event, payload, occurred_at, created_at, dispatched_at";

/// The select list of an outbox insert from the row source `r`, whose columns are named as
/// the table's. `dispatched_at` is `NULL` (waiting for fan-out) when a subscription of the
/// event's team wants its name, else when the event occurred: an event nobody wants is written
/// already fanned out, so the webhook worker never takes and marks it (a second version of
/// the row in every index), and retention counts from the use case's clock, as the memory
/// store does. A subscription made after the event was written does not get it, as one made
/// after its fan-out never did (docs/decisions.md).
fn selected_from(r: &str) -> String {
    format!(
        "{r}.id, {r}.team_id, {r}.event, {r}.payload, {r}.occurred_at, {r}.created_at, \
         CASE WHEN EXISTS (SELECT 1 FROM webhooks w WHERE w.team_id = {r}.team_id \
         AND w.event = {r}.event) THEN NULL ELSE {r}.occurred_at END"
    )
}

/// `row` as a one-row source `r` for [`selected_from`], appended to `sql`.
fn push_row_source(sql: &mut RawSql, row: NewEventRow<'_>) {
    sql.push("(SELECT ")
        .text(row.id)
        .push(" AS id, ")
        .text(row.team_id)
        .push(" AS team_id, ")
        .text(row.event)
        .push(" AS event, ")
        .text(row.payload)
        .push(" AS payload, ")
        .param(Param::Timestamp(row.occurred_at))
        .push(" AS occurred_at, ")
        .param(Param::Timestamp(row.created_at))
        .push(" AS created_at) r");
}

/// Writes `events` to the outbox on `conn`. Call it inside the write transaction of the change
/// the events describe, so both commit or neither does. One row at a time keeps `seq` in the
/// order given. An event carrying `notify` also writes its followers' notifications.
pub(crate) fn insert_events(conn: &mut DbConnection, events: &[NewEvent]) -> DbResult<()> {
    let created_at = written_now();
    let insert = format!(
        "INSERT INTO outbox_events ({INSERTED_COLUMNS}) SELECT {} FROM ",
        selected_from("r")
    );
    for event in events {
        let mut sql = RawSql::new();
        sql.push(&insert);
        push_row_source(&mut sql, NewEventRow::new(event, created_at));
        sql.execute(conn)?;
        super::notifications::notify_followers(conn, event)?;
    }
    if !events.is_empty() {
        wrote_events();
    }
    Ok(())
}

/// `events` as steps of a one-statement write on PostgreSQL (`WITH …`, see
/// `tx::one_statement`), appended to `sql`: each outbox row is written once for each row the
/// step `after` returns, and each after the one before it, so `seq` keeps their order as
/// `insert_events` does. `false`, with nothing appended, when an event notifies followers:
/// their notifications take statements of their own, so such a write keeps its transaction.
/// The caller says `wrote_events` when the statement wrote them.
pub(crate) fn event_steps(sql: &mut RawSql, events: &[NewEvent], after: &str) -> bool {
    if !in_one_statement(events) {
        return false;
    }
    let created_at = written_now();
    let mut previous = after.to_owned();
    for (i, event) in events.iter().enumerate() {
        let step = format!("event_{i}");
        sql.push(&format!(
            ", {step} AS (INSERT INTO outbox_events ({INSERTED_COLUMNS}) SELECT {} FROM \
             {previous}, ",
            selected_from("r")
        ));
        push_row_source(sql, NewEventRow::new(event, created_at));
        sql.push(" RETURNING seq)");
        previous = step;
    }
    true
}

/// Outbox rows as columns, for one PostgreSQL statement that writes the events of many
/// writes at once (`unnest` over arrays, one statement text whatever their number). Each
/// event names its write (`owner`), so the statement writes it only if that write went in.
pub(crate) struct EventColumns<'a> {
    owner: Vec<i64>,
    id: Vec<String>,
    team_id: Vec<String>,
    event: Vec<&'a str>,
    payload: Vec<&'a str>,
    occurred_at: Vec<PrimitiveDateTime>,
    created_at: PrimitiveDateTime,
}

impl<'a> EventColumns<'a> {
    pub(crate) fn new() -> Self {
        Self {
            owner: Vec::new(),
            id: Vec::new(),
            team_id: Vec::new(),
            event: Vec::new(),
            payload: Vec::new(),
            occurred_at: Vec::new(),
            created_at: written_now(),
        }
    }

    /// Whether no event was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// Adds `event`, written if the write numbered `owner` goes in; events are written in the
    /// order added, so `seq` keeps it. `false` for an event that notifies followers: their
    /// notifications take statements of their own.
    pub(crate) fn push(&mut self, owner: i64, event: &'a NewEvent) -> bool {
        if !in_one_statement(std::slice::from_ref(event)) {
            return false;
        }
        let row = NewEventRow::new(event, self.created_at);
        self.owner.push(owner);
        self.id.push(row.id);
        self.team_id.push(row.team_id);
        self.event.push(row.event);
        self.payload.push(row.payload);
        self.occurred_at.push(row.occurred_at);
        true
    }

    /// A `WITH` step named `name` that inserts the events whose owner the step `written`
    /// returns (as its column `ord`).
    pub(crate) fn walk_step<'b>(
        &'b self,
        name: &str,
        written: &str,
        out: &mut AstPass<'_, 'b, Pg>,
    ) -> QueryResult<()> {
        out.push_sql(&format!(
            ", {name} AS (INSERT INTO outbox_events ({INSERTED_COLUMNS}) SELECT {} FROM \
             (SELECT u.*, ",
            selected_from("e")
        ));
        out.push_bind_param::<SqlTimestamp, _>(&self.created_at)?;
        out.push_sql(" AS created_at FROM unnest(");
        out.push_bind_param::<Array<BigInt>, _>(&self.owner)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.team_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.event)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.payload)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<SqlTimestamp>, _>(&self.occurred_at)?;
        out.push_sql(&format!(
            ") WITH ORDINALITY AS u(owner, id, team_id, event, payload, occurred_at, n)) e \
             JOIN {written} ON {written}.ord = e.owner ORDER BY e.n RETURNING seq)"
        ));
        Ok(())
    }
}

/// Whether `events` can be written by one statement (`event_steps`, `EventColumns`): not
/// when one notifies followers, whose notifications take statements of their own.
pub(crate) fn in_one_statement(events: &[NewEvent]) -> bool {
    events.iter().all(|event| event.notify.is_none())
}

/// Says that the operation running on this thread wrote outbox events (`noting_events`), for
/// a write that did not go through `insert_events`.
pub(crate) fn wrote_events() {
    WROTE_EVENTS.with(|wrote| wrote.set(true));
}

#[async_trait]
impl OutboxStore for DieselStore {
    async fn append_events(&self, events: &[NewEvent]) -> StoreResult<()> {
        let events = events.to_vec();
        self.run(move |conn| write_tx(conn, |conn| insert_events(conn, &events)))
            .await
    }

    async fn events(&self, team: TeamId) -> StoreResult<Vec<StoredEvent>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            outbox_events::table
                .filter(outbox_events::team_id.eq(team))
                .order(outbox_events::seq.asc())
                .select(EventRow::as_select())
                .load(conn)?
                .into_iter()
                .map(EventRow::into_domain)
                .collect()
        })
        .await
    }
}
