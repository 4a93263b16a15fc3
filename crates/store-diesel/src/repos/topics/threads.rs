//! `comment_threads`: a page of top-level comments with every reply below each, in five
//! statements whatever the page size or the depth of the threads: the count and the page of
//! top-level comments (hand-written SQL, joined to topics and stages for the public scope),
//! then all replies of the page's roots through `root_id`, their authors, and their topics.

use std::collections::HashMap;

use diesel::prelude::*;
use sounding_domain::{
    feedback_comment::{CommentSort, Direction},
    page::Paged,
    topic_comment::{CommentThread, ThreadQuery, ThreadScope, TopicCommentView},
};

use super::{
    list::Count,
    rows::{topic_refs_by_id, CommentRow},
};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    raw_sql::{Param, RawSql},
    repos::subscribers::subscribers_by_id,
    schema::topic_comments,
};

/// Every column of `topic_comments`, named as `CommentRow` reads them.
const COLUMNS: &str = "c.id, c.team_id, c.topic_id, c.creator_id, c.parent_id, c.root_id, \
    c.text, c.source, c.created_at, c.updated_at";

pub(super) fn threads(
    conn: &mut DbConnection,
    team: &str,
    query: &ThreadQuery,
) -> DbResult<Paged<CommentThread>> {
    let mut count = RawSql::for_connection(conn);
    count.push("SELECT COUNT(*) AS n FROM topic_comments c");
    selection(&mut count, team, query);
    let total = count.load::<Count>(conn)?.first().map_or(0, |c| c.n);

    let roots: Vec<CommentRow> = if total > query.page.offset {
        let mut page = RawSql::for_connection(conn);
        page.push("SELECT ")
            .push(COLUMNS)
            .push(" FROM topic_comments c");
        selection(&mut page, team, query);
        let direction = match query.direction {
            Direction::Asc => " ASC",
            Direction::Desc => " DESC",
        };
        page.push(match query.sort {
            CommentSort::CreatedAt => " ORDER BY c.created_at",
            CommentSort::UpdatedAt => " ORDER BY c.updated_at",
        })
        .push(direction)
        .push(", c.id")
        .push(direction)
        .push(" LIMIT ")
        .param(Param::BigInt(query.page.limit))
        .push(" OFFSET ")
        .param(Param::BigInt(query.page.offset));
        page.load(conn)?
    } else {
        Vec::new()
    };
    if roots.is_empty() {
        return Ok(Paged {
            items: Vec::new(),
            total,
            page: query.page,
        });
    }

    // Every reply of the page's threads, whatever its depth: each carries its root's id.
    // Sorted here rather than by an `ORDER BY`: given one, SQLite's planner walks the team's
    // `(team_id, created_at)` index to skip the sort, reading every comment of the team.
    let root_ids: Vec<&str> = roots.iter().map(|r| r.id.as_str()).collect();
    let mut replies: Vec<CommentRow> = topic_comments::table
        .filter(topic_comments::team_id.eq(team))
        .filter(topic_comments::root_id.eq_any(root_ids))
        .filter(topic_comments::parent_id.is_not_null())
        .select(CommentRow::as_select())
        .load(conn)?;
    replies.sort_unstable_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    let authors = subscribers_by_id(
        conn,
        team,
        roots.iter().chain(&replies).map(|r| r.creator_id.as_str()),
    )?;
    let topics = topic_refs_by_id(conn, team, roots.iter().map(|r| r.topic_id.as_str()))?;

    let view = |row: CommentRow| -> DbResult<TopicCommentView> {
        let author = authors.get(&row.creator_id).cloned();
        // A comment goes with its topic, so its topic is always there.
        let topic = topics.get(&row.topic_id).cloned().ok_or_else(|| {
            DbError::corrupt(
                "topic_comments.topic_id",
                format!("no topic {}", row.topic_id),
            )
        })?;
        Ok(TopicCommentView {
            comment: row.into_domain()?,
            author,
            topic,
        })
    };
    let mut replies_by_root: HashMap<String, Vec<TopicCommentView>> = HashMap::new();
    for row in replies {
        let root = row.root_id.clone();
        replies_by_root.entry(root).or_default().push(view(row)?);
    }
    let items = roots
        .into_iter()
        .map(|row| {
            let replies = replies_by_root.remove(&row.id).unwrap_or_default();
            Ok(CommentThread {
                root: view(row)?,
                replies,
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(Paged {
        items,
        total,
        page: query.page,
    })
}

/// The joins and `WHERE` clause that pick the query's top-level comments (shared by the count
/// and the page).
fn selection(sql: &mut RawSql, team: &str, query: &ThreadQuery) {
    if query.scope == ThreadScope::Public {
        sql.push(
            " JOIN topics t ON t.id = c.topic_id \
             JOIN stages s ON s.id = t.stage_id",
        );
    }
    sql.push(" WHERE c.team_id = ")
        .text(team)
        .push(" AND c.parent_id IS NULL");
    if let Some(topic) = query.topic {
        sql.push(" AND c.topic_id = ").text(topic.to_string());
    }
    if query.scope == ThreadScope::Public {
        sql.push(" AND t.published_at IS NOT NULL AND s.is_private = FALSE");
    }
}
