//! Documents and their emoji reactions. Each write is one `write_tx`; a reaction first reads
//! its document with a key-share lock on PostgreSQL (so a concurrent delete waits for it, or it
//! for the delete) and the unique index keeps one reaction per emoji per subscriber.
//!
//! Views are filled in batches: the reaction counts of a page (one grouped query) and the
//! viewer's own reactions (one query), so a list is four statements whatever its size. The list
//! itself is hand-written SQL (through `RawSql`) for PostgreSQL's `COLLATE "C"` title order.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::{dsl::count_star, prelude::*};
use sounding_domain::{
    document::{
        search_text, title_key, Document, DocumentPatch, DocumentQuery, DocumentSort, DocumentView,
        ReactionCounts, ReactionState,
    },
    feedback_comment::Direction,
    ids::{DocumentId, SubscriberId, TeamId},
    page::Paged,
    ports::{DocumentStore, StoreResult},
    timestamp::Timestamp,
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, to_db_time};
use crate::{
    connection::{per_backend, DbConnection},
    error::DbResult,
    one_of::one_of,
    raw_sql::{like_contains, RawSql},
    repos::paging::{counted_page, ListSql},
    schema::{document_reactions, documents},
    tx::write_tx,
    DieselStore,
};

/// A whole `documents` row. Also read by name from the list's hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = documents, treat_none_as_default_value = false)]
struct DocumentRow {
    id: String,
    team_id: String,
    url_id: String,
    title: String,
    title_key: String,
    text: String,
    search_text: String,
    published_at: Option<PrimitiveDateTime>,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

/// Every column of `documents`, named as `DocumentRow` reads them (checked by a test below).
const COLUMNS: &str = "d.id, d.team_id, d.url_id, d.title, d.title_key, d.text, \
    d.search_text, d.published_at, d.created_at, d.updated_at";

impl DocumentRow {
    fn from_domain(d: &Document) -> Self {
        Self {
            id: d.id.to_string(),
            team_id: d.team_id.to_string(),
            url_id: d.url_id.clone(),
            title: d.title.clone(),
            title_key: title_key(&d.title),
            text: d.text.clone(),
            search_text: search_text(&d.title, &d.text),
            published_at: d.published_at.map(to_db_time),
            created_at: to_db_time(d.created_at),
            updated_at: to_db_time(d.updated_at),
        }
    }

    fn into_domain(self) -> DbResult<Document> {
        Ok(Document {
            id: parse_id("documents.id", &self.id)?,
            team_id: parse_id("documents.team_id", &self.team_id)?,
            url_id: self.url_id,
            title: self.title,
            text: self.text,
            published_at: self.published_at.map(from_db_time),
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

/// The rows as views: their reaction counts in one grouped query and the viewer's reactions
/// in one more (none without a viewer or rows).
fn views(
    conn: &mut DbConnection,
    team: &str,
    rows: Vec<DocumentRow>,
    viewer: Option<&str>,
) -> DbResult<Vec<DocumentView>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let counted: Vec<(String, String, i64)> = document_reactions::table
        .filter(document_reactions::team_id.eq(team))
        .filter(one_of(document_reactions::document_id, &ids))
        .group_by((document_reactions::document_id, document_reactions::emoji))
        .select((
            document_reactions::document_id,
            document_reactions::emoji,
            count_star(),
        ))
        .load(conn)?;
    let mut counts: HashMap<String, ReactionCounts> = HashMap::new();
    for (document, emoji, n) in counted {
        counts.entry(document).or_default().insert(emoji, n);
    }
    let mut mine: HashMap<String, Vec<String>> = HashMap::new();
    if let Some(viewer) = viewer {
        let own: Vec<(String, String)> = document_reactions::table
            .filter(document_reactions::team_id.eq(team))
            .filter(one_of(document_reactions::document_id, &ids))
            .filter(document_reactions::subscriber_id.eq(viewer))
            .select((document_reactions::document_id, document_reactions::emoji))
            .order((document_reactions::document_id, document_reactions::emoji))
            .load(conn)?;
        for (document, emoji) in own {
            mine.entry(document).or_default().push(emoji);
        }
    }
    rows.into_iter()
        .map(|row| {
            let reactions = counts.remove(&row.id).unwrap_or_default();
            let mut my_reactions = mine.remove(&row.id).unwrap_or_default();
            // Bytewise, as the other engine and the memory store order them.
            my_reactions.sort();
            Ok(DocumentView {
                document: row.into_domain()?,
                reactions,
                my_reactions,
            })
        })
        .collect()
}

fn read_view(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    viewer: Option<&str>,
) -> DbResult<Option<DocumentView>> {
    let row = documents::table
        .filter(documents::id.eq(id))
        .filter(documents::team_id.eq(team))
        .select(DocumentRow::as_select())
        .get_result(conn)
        .optional()?;
    Ok(match row {
        Some(row) => views(conn, team, vec![row], viewer)?.pop(),
        None => None,
    })
}

/// Whether the team has this document published, its row key-share locked on PostgreSQL so
/// it cannot be deleted before the transaction ends.
fn lock_published(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<bool> {
    macro_rules! document {
        () => {
            documents::table
                .filter(documents::id.eq(id))
                .filter(documents::team_id.eq(team))
                .filter(documents::published_at.is_not_null())
                .select(documents::id)
        };
    }
    let found = match conn {
        DbConnection::Postgresql(inner) => document!().for_key_share().get_result::<String>(inner),
        DbConnection::Sqlite(inner) => document!().get_result::<String>(inner),
    }
    .optional()?;
    Ok(found.is_some())
}

/// The `WHERE` clause that picks the query's documents (shared by the count and the page).
fn selection(sql: &mut RawSql, team: &str, query: &DocumentQuery) {
    sql.push(" WHERE d.team_id = ").text(team);
    match query.published {
        Some(true) => {
            sql.push(" AND d.published_at IS NOT NULL");
        }
        Some(false) => {
            sql.push(" AND d.published_at IS NULL");
        }
        None => {}
    }
    if let Some(term) = &query.search {
        sql.push(" AND d.search_text LIKE ")
            .text(like_contains(term))
            .push(" ESCAPE '\\'");
    }
}

/// One count, one page, then the page's reactions: at most four statements.
fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &DocumentQuery,
) -> DbResult<Paged<DocumentView>> {
    let postgres = matches!(conn, DbConnection::Postgresql(_));
    let order = |page: &mut RawSql| {
        let direction = match query.direction {
            Direction::Asc => " ASC",
            Direction::Desc => " DESC",
        };
        page.push(" ORDER BY ");
        match query.sort {
            // Unpublished documents count as older than any published one on both engines
            // (their NULLs would sort first on one and last on the other).
            DocumentSort::PublishedAt => page
                .push("CASE WHEN d.published_at IS NULL THEN 0 ELSE 1 END")
                .push(direction)
                .push(", d.published_at"),
            DocumentSort::CreatedAt => page.push("d.created_at"),
            DocumentSort::UpdatedAt => page.push("d.updated_at"),
            // Bytewise on both engines: SQLite's BINARY collation, "C" on PostgreSQL.
            DocumentSort::Title if postgres => page.push("d.title_key COLLATE \"C\""),
            DocumentSort::Title => page.push("d.title_key"),
        };
        page.push(direction).push(", d.id").push(direction);
    };
    let (total, rows): (i64, Vec<DocumentRow>) = counted_page(
        conn,
        query.page,
        ListSql {
            from: "documents d",
            columns: COLUMNS,
            selection: |sql: &mut RawSql| selection(sql, team, query),
            order,
        },
    )?;
    let viewer = query.viewer.map(|v| v.to_string());
    Ok(Paged {
        items: views(conn, team, rows, viewer.as_deref())?,
        total,
        page: query.page,
    })
}

#[async_trait]
impl DocumentStore for DieselStore {
    async fn insert_document(&self, document: &Document) -> StoreResult<()> {
        let row = DocumentRow::from_domain(document);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // A taken url id violates `documents_team_id_url_id_key`: `document_url_id`.
                diesel::insert_into(documents::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn document(
        &self,
        team: TeamId,
        id: DocumentId,
        viewer: Option<SubscriberId>,
    ) -> StoreResult<Option<DocumentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        let viewer = viewer.map(|v| v.to_string());
        self.run_read(move |conn| read_view(conn, &team, &id, viewer.as_deref()))
            .await
    }

    async fn update_document(
        &self,
        team: TeamId,
        id: DocumentId,
        patch: &DocumentPatch,
        now: Timestamp,
    ) -> StoreResult<Option<DocumentView>> {
        let (team, id, patch) = (team.to_string(), id.to_string(), patch.clone());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Read and written in one transaction, the row locked on PostgreSQL (SQLite's
                // `BEGIN IMMEDIATE` serializes writers already), so a concurrent patch of
                // another field is not overwritten with the value read before it.
                macro_rules! document {
                    () => {
                        documents::table
                            .filter(documents::id.eq(&id))
                            .filter(documents::team_id.eq(&team))
                            .select(DocumentRow::as_select())
                    };
                }
                let row = match conn {
                    DbConnection::Postgresql(inner) => {
                        document!().for_no_key_update().get_result(inner)
                    }
                    DbConnection::Sqlite(inner) => document!().get_result(inner),
                }
                .optional()?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let mut document = row.into_domain()?;
                patch.apply(&mut document, now);
                let row = DocumentRow::from_domain(&document);
                diesel::update(documents::table.find(&row.id))
                    .set((
                        documents::title.eq(&row.title),
                        documents::title_key.eq(&row.title_key),
                        documents::text.eq(&row.text),
                        documents::search_text.eq(&row.search_text),
                        documents::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)?;
                read_view(conn, &team, &id, None)
            })
        })
        .await
    }

    async fn set_document_published(
        &self,
        team: TeamId,
        id: DocumentId,
        publish: bool,
        now: Timestamp,
    ) -> StoreResult<Option<DocumentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        let now = to_db_time(now);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let target = documents::table
                    .filter(documents::id.eq(&id))
                    .filter(documents::team_id.eq(&team));
                // Changes only a document in the other state, so the first publish time stays
                // and a repeated call changes nothing.
                if publish {
                    diesel::update(target.filter(documents::published_at.is_null()))
                        .set((
                            documents::published_at.eq(Some(now)),
                            documents::updated_at.eq(now),
                        ))
                        .execute(conn)?;
                } else {
                    diesel::update(target.filter(documents::published_at.is_not_null()))
                        .set((
                            documents::published_at.eq(None::<PrimitiveDateTime>),
                            documents::updated_at.eq(now),
                        ))
                        .execute(conn)?;
                }
                read_view(conn, &team, &id, None)
            })
        })
        .await
    }

    async fn delete_document(&self, team: TeamId, id: DocumentId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let found = documents::table
                    .filter(documents::id.eq(&id))
                    .filter(documents::team_id.eq(&team))
                    .select(documents::id)
                    .get_result::<String>(conn)
                    .optional()?;
                if found.is_none() {
                    return Ok(false);
                }
                // Explicit rather than by cascade, so the statements say what goes.
                diesel::delete(
                    document_reactions::table.filter(document_reactions::document_id.eq(&id)),
                )
                .execute(conn)?;
                diesel::delete(documents::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }

    async fn list_documents(
        &self,
        team: TeamId,
        query: &DocumentQuery,
    ) -> StoreResult<Paged<DocumentView>> {
        let (team, query) = (team.to_string(), query.clone());
        self.run_read(move |conn| list(conn, &team, &query)).await
    }

    async fn set_document_reaction(
        &self,
        team: TeamId,
        document: DocumentId,
        subscriber: SubscriberId,
        emoji: &str,
        react: bool,
        at: Timestamp,
    ) -> StoreResult<Option<ReactionState>> {
        let (team, id) = (team.to_string(), document.to_string());
        let (subscriber, emoji) = (subscriber.to_string(), emoji.to_owned());
        let at = to_db_time(at);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_published(conn, &team, &id)? {
                    return Ok(None);
                }
                if react {
                    // A repeat (also a concurrent one) meets the unique index and does nothing.
                    per_backend!(conn, |inner| diesel::insert_into(document_reactions::table)
                        .values((
                            document_reactions::document_id.eq(&id),
                            document_reactions::subscriber_id.eq(&subscriber),
                            document_reactions::emoji.eq(&emoji),
                            document_reactions::team_id.eq(&team),
                            document_reactions::created_at.eq(at),
                        ))
                        .on_conflict((
                            document_reactions::document_id,
                            document_reactions::subscriber_id,
                            document_reactions::emoji,
                        ))
                        .do_nothing()
                        .execute(inner))?;
                } else {
                    diesel::delete(
                        document_reactions::table
                            .filter(document_reactions::document_id.eq(&id))
                            .filter(document_reactions::subscriber_id.eq(&subscriber))
                            .filter(document_reactions::emoji.eq(&emoji)),
                    )
                    .execute(conn)?;
                }
                let view = read_view(conn, &team, &id, Some(&subscriber))?;
                Ok(view.map(|v| ReactionState {
                    reactions: v.reactions,
                    mine: v.my_reactions,
                }))
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::raw_sql::test_columns_read_the_row!(COLUMNS, documents::table, DocumentRow);
}
