//! A new item on PostgreSQL in one statement: the item, its creator's follow and its events
//! as `WITH` steps, committed alone (`tx::one_statement`). The transaction it replaces took
//! six round trips (`BEGIN`, the item, the follow, two events, `COMMIT`); on PostgreSQL a
//! write's cost is mostly per statement (docs/benchmarks.md, fourteenth round). Items that
//! arrive while others are being inserted go in together, in one statement for them all
//! (`insert_batch`, queued by `batch::Batcher`). SQLite, in process, keeps the transaction
//! (`insert_alone`), as does an item created with tags, whose check and links are several
//! statements anyway.
//!
//! The follow and the first event read the `item` step, and each event the one before it, so
//! the events keep their order in `seq`. A taken url id fails the whole statement on
//! `feedback_team_id_url_id_key`, as the transaction's `INSERT` did: nothing is left behind.

use diesel::{
    pg::Pg,
    prelude::*,
    query_builder::{AstPass, QueryFragment, QueryId},
    sql_types::{Array, BigInt, Nullable, Text, Timestamp},
};
use sounding_domain::{event::NewEvent, ports::Conflict};
use time::PrimitiveDateTime;

use super::{curation, follow, known_tags, rows::FeedbackRow};
use crate::{
    batch::{self, Batcher},
    connection::{per_backend, DbConnection},
    error::{DbError, DbResult},
    raw_sql::{FirstStep, Param, RawSql},
    repos::outbox::{self, insert_events, EventColumns},
    schema::feedback,
    tx::{self, write_tx},
};

/// A new item waiting to be inserted in a batch: no tags, and events one statement can write
/// (`QueuedItem::fits`).
pub(crate) struct QueuedItem {
    row: FeedbackRow,
    events: Vec<NewEvent>,
}

impl QueuedItem {
    /// Whether an item with `tags` and `events` may go into a batch: not with tags (their
    /// check and links are statements of their own), nor with an event that notifies
    /// followers.
    pub(super) fn fits(tags: &[String], events: &[NewEvent]) -> bool {
        tags.is_empty() && outbox::in_one_statement(events)
    }

    pub(super) fn new(row: FeedbackRow, events: &[NewEvent]) -> Self {
        Self {
            row,
            events: events.to_vec(),
        }
    }
}

/// The queue of PostgreSQL items (`DieselStore::insert_feedback`).
pub(crate) type ItemBatcher = Batcher<QueuedItem, ()>;

pub(crate) fn item_batcher() -> ItemBatcher {
    Batcher::new(insert_batch)
}

/// Inserts one item with its tags, its creator's follow and its events: in one statement on
/// PostgreSQL when it has no tags and its events allow, else in a write transaction. `tags`
/// are sorted and without repeats.
pub(super) fn insert_alone(
    conn: &mut DbConnection,
    row: &FeedbackRow,
    tags: &[String],
    events: &[NewEvent],
) -> DbResult<()> {
    if let (DbConnection::Postgresql(inner), true) = (&mut *conn, tags.is_empty()) {
        if insert_in_one_statement(inner, row, events)? {
            return Ok(());
        }
    }
    write_tx(conn, |conn| {
        // Key-share locked on PostgreSQL, so none can be deleted before the commit.
        if known_tags(conn, &row.team_id, tags)? != tags.len() as i64 {
            return Err(DbError::Conflict(Conflict::FeedbackTag));
        }
        // A taken url id violates `feedback_team_id_url_id_key`, reported as
        // `feedback_url_id`; the rollback leaves nothing behind.
        per_backend!(conn, |inner| diesel::insert_into(feedback::table)
            .values(row)
            .execute(inner))?;
        if !tags.is_empty() {
            curation::retag(conn, &row.team_id, &row.id, tags)?;
        }
        follow(conn, &row.team_id, &row.id, &row.creator_id, row.created_at)?;
        insert_events(conn, events)
    })
}

/// Inserts `items` (PostgreSQL) in one statement, or one by one should it fail (a url id
/// taken, by another item or by one of the batch), so an item that cannot go in fails alone.
fn insert_batch(conn: &mut DbConnection, items: Vec<QueuedItem>) -> Vec<DbResult<()>> {
    batch::together_or_alone(conn, &items, insert_many, |conn, item| {
        insert_alone(conn, &item.row, &[], &item.events)
    })
}

/// The statement of `insert_batch`: every item goes in, or none.
fn insert_many(conn: &mut PgConnection, items: &[QueuedItem]) -> DbResult<Vec<()>> {
    let mut many = InsertMany {
        items: ItemColumns::default(),
        events: EventColumns::new(),
    };
    for (ord, item) in (0..).zip(items) {
        many.items.push(ord, &item.row);
        for event in &item.events {
            let written = many.events.push(ord, event);
            debug_assert!(
                written,
                "`QueuedItem::fits` lets in only events one statement writes"
            );
        }
    }
    let wrote_events = !many.events.is_empty();
    many.execute(conn)?;
    if wrote_events {
        outbox::wrote_events();
    }
    Ok(vec![(); items.len()])
}

/// Inserts the item in one statement; `false`, having written nothing, when its events
/// cannot be written in one (they notify followers), for the caller's transaction to do it.
pub(super) fn insert_in_one_statement(
    conn: &mut PgConnection,
    row: &FeedbackRow,
    events: &[NewEvent],
) -> DbResult<bool> {
    let Some(rest) = after_the_item(row, events) else {
        return Ok(false);
    };
    tx::one_statement(conn, |conn| statement(row, &rest).execute(conn))?;
    if !events.is_empty() {
        outbox::wrote_events();
    }
    Ok(true)
}

/// The whole statement: the item's `INSERT`, from its row's `Insertable`, then `rest`.
fn statement<'a>(
    row: &'a FeedbackRow,
    rest: &'a RawSql,
) -> FirstStep<'a, impl QueryFragment<Pg> + 'a> {
    let item = diesel::insert_into(feedback::table)
        .values(row)
        .returning(feedback::id);
    FirstStep::new("item", item, rest)
}

/// The steps after `item`: the follow and the events; `None` when the events cannot be
/// steps. The follow needs no `ON CONFLICT`: nobody follows an item that did not exist.
fn after_the_item(row: &FeedbackRow, events: &[NewEvent]) -> Option<RawSql> {
    let mut rest = RawSql::new();
    rest.push(
        ", follow AS (INSERT INTO feedback_follows (feedback_id, subscriber_id, team_id, \
         created_at) SELECT item.id, ",
    )
    .text(&row.creator_id)
    .push(", ")
    .text(&row.team_id)
    .push(", ")
    .param(Param::Timestamp(row.created_at))
    .push(" FROM item)");
    if !outbox::event_steps(&mut rest, events, "item") {
        return None;
    }
    rest.push(" SELECT item.id FROM item");
    Some(rest)
}

/// Items as columns (`insert_many`): the statement reads them with `unnest`, so it is one text,
/// prepared once per connection, whatever the number of items.
struct InsertMany<'a> {
    items: ItemColumns<'a>,
    events: EventColumns<'a>,
}

/// The columns of `feedback` a new item sets, grouped by type in the order of `ITEM_COLUMNS`
/// (its counts are 0).
#[derive(Default)]
struct ItemColumns<'a> {
    ord: Vec<i64>,
    texts: [Vec<&'a str>; 10],
    nullable_texts: [Vec<Option<&'a str>>; 3],
    nullable_times: [Vec<Option<PrimitiveDateTime>>; 2],
    times: [Vec<PrimitiveDateTime>; 2],
}

/// The names of `ItemColumns`, in order.
const ITEM_COLUMNS: &str = "id, team_id, url_id, title, text, status, priority, creator_id, \
                            meta, search_text, board_id, kind, last_modified_by_id, \
                            published_at, archived_at, created_at, updated_at";

impl<'a> ItemColumns<'a> {
    fn push(&mut self, ord: i64, row: &'a FeedbackRow) {
        debug_assert!(row.comment_count == 0);
        self.ord.push(ord);
        let texts = [
            &row.id,
            &row.team_id,
            &row.url_id,
            &row.title,
            &row.text,
            &row.status,
            &row.priority,
            &row.creator_id,
            &row.meta,
            &row.search_text,
        ];
        for (column, value) in self.texts.iter_mut().zip(texts) {
            column.push(value);
        }
        let nullable_texts = [&row.board_id, &row.kind, &row.last_modified_by_id];
        for (column, value) in self.nullable_texts.iter_mut().zip(nullable_texts) {
            column.push(value.as_deref());
        }
        let nullable_times = [row.published_at, row.archived_at];
        for (column, value) in self.nullable_times.iter_mut().zip(nullable_times) {
            column.push(value);
        }
        for (column, value) in self.times.iter_mut().zip([row.created_at, row.updated_at]) {
            column.push(value);
        }
    }

    fn walk_unnest<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("unnest(");
        out.push_bind_param::<Array<BigInt>, _>(&self.ord)?;
        for column in &self.texts {
            out.push_sql(", ");
            out.push_bind_param::<Array<Text>, _>(column)?;
        }
        for column in &self.nullable_texts {
            out.push_sql(", ");
            out.push_bind_param::<Array<Nullable<Text>>, _>(column)?;
        }
        for column in &self.nullable_times {
            out.push_sql(", ");
            out.push_bind_param::<Array<Nullable<Timestamp>>, _>(column)?;
        }
        for column in &self.times {
            out.push_sql(", ");
            out.push_bind_param::<Array<Timestamp>, _>(column)?;
        }
        out.push_sql(&format!(") AS t(ord, {ITEM_COLUMNS})"));
        Ok(())
    }
}

impl QueryFragment<Pg> for InsertMany<'_> {
    // The steps of `insert_in_one_statement`, for many items. Their counts are kept by one
    // statement trigger, which takes the count rows in key order (migration
    // `2026-12-05-000001_insert_counts_per_statement`).
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH input AS (SELECT * FROM ");
        self.items.walk_unnest(&mut out)?;
        out.push_sql(&format!(
            "), item AS (INSERT INTO feedback ({ITEM_COLUMNS}, comment_count) \
             SELECT {ITEM_COLUMNS}, 0 FROM input RETURNING id), \
             follow AS (INSERT INTO feedback_follows (feedback_id, subscriber_id, team_id, \
             created_at) SELECT i.id, i.creator_id, i.team_id, i.created_at \
             FROM input i JOIN item ON item.id = i.id)"
        ));
        // Every item goes in or the statement fails, so every item's events are written.
        self.events.walk_step("events", "input", &mut out)?;
        out.push_sql(" SELECT count(*) FROM item");
        Ok(())
    }
}

impl QueryId for InsertMany<'_> {
    type QueryId = ();
    // Kept prepared by its text, which is always the same.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Conn> RunQueryDsl<Conn> for InsertMany<'_> {}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sounding_domain::{event::EventKind, ids::TeamId, timestamp::Timestamp};

    use super::*;
    use crate::repos::feedback::rows::tests::item_with_empty_fields;

    /// The whole statement, the query builder's step included, is one PostgreSQL keeps
    /// prepared: the point of writing it in one.
    #[test]
    fn the_statement_is_kept_prepared() {
        let row = item_with_empty_fields();
        let event = NewEvent::new(
            TeamId::new(),
            EventKind::NewFeedback,
            Timestamp::UNIX_EPOCH,
            &[],
            json!({}),
        );
        let rest = after_the_item(&row, &[event]).unwrap();
        assert!(
            QueryFragment::<Pg>::is_safe_to_cache_prepared(&statement(&row, &rest), &Pg).unwrap()
        );
    }
}
