//! `comment_threads`: a page of top-level comments with every reply below each, in four
//! statements for one topic (five over every topic) whatever the page size or the depth of the
//! threads: the total (each topic keeps its `root_comment_count`; for one topic, read with its
//! reference) and the page of top-level comments (hand-written SQL, joined to topics and stages
//! as the scope needs), then all replies of the page's roots through `root_id`, their authors,
//! and, over every topic, the roots' topics.

use std::collections::HashMap;

use diesel::{
    prelude::*,
    sql_types::{BigInt, Text},
};
use sounding_domain::{
    feedback_comment::{CommentSort, Direction},
    page::Paged,
    topic::TopicCondition,
    topic_comment::{CommentThread, ThreadQuery, ThreadScope, TopicCommentView, TopicRef},
};

use super::rows::{topic_refs_by_id, CommentRow};
use crate::{
    connection::DbConnection,
    error::DbResult,
    one_of::one_of,
    raw_sql::RawSql,
    repos::paging::{count, page_of, ListSql},
    repos::parse_id,
    repos::subscribers::people_by_id,
    schema::topic_comments,
};

/// Every column of `topic_comments`, named as `CommentRow` reads them (checked by a test below).
const COLUMNS: &str = "c.id, c.team_id, c.topic_id, c.creator_id, c.parent_id, c.root_id, \
    c.text, c.source, c.created_at, c.updated_at, c.deleted_at";

pub(super) fn threads(
    conn: &mut DbConnection,
    team: &str,
    query: &ThreadQuery,
) -> DbResult<Paged<CommentThread>> {
    let order = |page: &mut RawSql| {
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
        .push(direction);
    };
    let (total, known_topic) = total(conn, team, query)?;
    let roots: Vec<CommentRow> = page_of(
        conn,
        total,
        query.page,
        ListSql {
            from: "topic_comments c",
            columns: COLUMNS,
            selection: |sql: &mut RawSql| selection(sql, team, query),
            order,
        },
    )?;
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
        .filter(one_of(topic_comments::root_id, root_ids))
        .filter(topic_comments::parent_id.is_not_null())
        .select(CommentRow::as_select())
        .load(conn)?;
    replies.sort_unstable_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    let authors = people_by_id(
        conn,
        team,
        roots.iter().chain(&replies).map(|r| r.creator_id.as_str()),
    )?;
    let topics = match known_topic {
        Some((id, topic)) => HashMap::from([(id, topic)]),
        None => topic_refs_by_id(conn, team, roots.iter().map(|r| r.topic_id.as_str()))?,
    };

    let view = |row: CommentRow| -> DbResult<TopicCommentView> {
        let author = authors.get(&row.creator_id).cloned();
        let topic = topics.get(&row.topic_id).cloned();
        row.into_view(author, topic)
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

/// One topic in scope, as its total and its comments' reference read it.
#[derive(QueryableByName)]
struct ScopedTopic {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    title: String,
    #[diesel(sql_type = Text)]
    url_id: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// How many top-level comments the query picks, read from the kept `root_comment_count` so
/// the cost does not grow with the comments. For one topic, the same statement also reads the
/// topic's reference (every comment of the page names it), and a topic out of scope, or not
/// the team's, gives 0. For every topic in scope, the counts are summed.
fn total(
    conn: &mut DbConnection,
    team: &str,
    query: &ThreadQuery,
) -> DbResult<(i64, Option<(String, TopicRef)>)> {
    let mut sql = RawSql::new();
    match query.topic {
        Some(_) => sql.push("SELECT t.id, t.title, t.url_id, t.root_comment_count AS n"),
        None => sql.push("SELECT COALESCE(CAST(SUM(t.root_comment_count) AS BIGINT), 0) AS n"),
    };
    sql.push(" FROM topics t");
    join_stage(&mut sql, query.scope);
    sql.push(" WHERE t.team_id = ").text(team);
    if let Some(topic) = query.topic {
        sql.push(" AND t.id = ").text(topic.to_string());
    }
    in_scope(&mut sql, query.scope);
    if query.topic.is_none() {
        return Ok((count(&sql, conn)?, None));
    }
    let Some(found) = sql.load::<ScopedTopic>(conn)?.into_iter().next() else {
        return Ok((0, None));
    };
    let topic = TopicRef {
        id: parse_id("topics.id", &found.id)?,
        title: found.title,
        url_id: found.url_id,
    };
    Ok((found.n, Some((found.id, topic))))
}

/// Joins each topic `t` to its stage `s` when a condition of the scope is about the stage.
fn join_stage(sql: &mut RawSql, scope: ThreadScope) {
    if scope.conditions().contains(&TopicCondition::OnPublicStage) {
        sql.push(" JOIN stages s ON s.id = t.stage_id");
    }
}

/// The scope's conditions on `t` (topics) and `s` (stages, joined by `join_stage`).
fn in_scope(sql: &mut RawSql, scope: ThreadScope) {
    for condition in scope.conditions() {
        sql.push(match condition {
            TopicCondition::Published => " AND t.published_at IS NOT NULL",
            TopicCondition::OnPublicStage => " AND s.is_private = FALSE",
        });
    }
}

/// The joins and `WHERE` clause that pick the query's top-level comments.
fn selection(sql: &mut RawSql, team: &str, query: &ThreadQuery) {
    if !query.scope.conditions().is_empty() {
        sql.push(" JOIN topics t ON t.id = c.topic_id");
        join_stage(sql, query.scope);
    }
    sql.push(" WHERE c.team_id = ")
        .text(team)
        .push(" AND c.parent_id IS NULL");
    if let Some(topic) = query.topic {
        sql.push(" AND c.topic_id = ").text(topic.to_string());
    }
    in_scope(sql, query.scope);
}

#[cfg(test)]
mod tests {
    use diesel::RunQueryDsl;
    use sounding_domain::{ids::TopicId, page::PageRequest};

    use super::*;

    #[test]
    fn a_topics_threads_read_its_kept_total_then_its_roots_and_replies_by_index() {
        let mut conn = crate::migrations::scratch_sqlite();
        let topic = TopicId::new();
        let [team, root, reply, person] = [(); 4].map(|()| uuid::Uuid::now_v7().to_string());
        let at = "'2026-01-01 00:00:00', '2026-01-01 00:00:00'";
        diesel::sql_query(format!(
            "INSERT INTO stages (id, team_id, roadmap_id, name, position, created_at, \
             updated_at) VALUES ('s', '{team}', 'r', 'S', 0, {at})"
        ))
        .execute(&mut conn)
        .unwrap();
        diesel::sql_query(format!(
            "INSERT INTO topics (id, team_id, roadmap_id, stage_id, url_id, title, title_key, \
             description, subscriber_id, published_at, root_comment_count, created_at, \
             updated_at) VALUES ('{topic}', '{team}', 'r', 's', 'u', 'T', 't', '', '{person}', \
             '2026-01-01 00:00:00', 1, {at})"
        ))
        .execute(&mut conn)
        .unwrap();
        diesel::sql_query(format!(
            "INSERT INTO topic_comments (id, team_id, topic_id, creator_id, parent_id, root_id, \
             text, source, created_at, updated_at) VALUES \
             ('{root}', '{team}', '{topic}', '{person}', NULL, '{root}', 'root', 'api', {at}), \
             ('{reply}', '{team}', '{topic}', '{person}', '{root}', '{root}', 'reply', 'api', {at})"
        ))
        .execute(&mut conn)
        .unwrap();
        let query = ThreadQuery {
            topic: Some(topic),
            scope: ThreadScope::Public,
            sort: CommentSort::CreatedAt,
            direction: Direction::Desc,
            page: PageRequest {
                limit: 20,
                offset: 0,
            },
        };
        let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
            let page = threads(conn, &team, &query).unwrap();
            assert_eq!((page.total, page.items[0].replies.len()), (1, 1));
        });
        assert_eq!(
            plans.len(),
            4,
            "one topic: its total and reference, the page, the replies, the authors: {plans:?}"
        );
        let (total, roots, replies) = (&plans[0], &plans[1], &plans[2]);
        assert!(
            !total.0.contains("topic_comments") && !total.1.contains("topic_comments"),
            "the total is the topic's kept count, not a count of its comments: {total:?}"
        );
        assert!(
            roots.1.contains("topic_comments_topic_id_roots_idx"),
            "the page reads the topic's roots: {roots:?}"
        );
        assert!(!roots.1.contains("TEMP B-TREE"), "{roots:?}");
        assert!(
            replies.1.contains("topic_comments_root_id_team_id_idx"),
            "replies are found by their roots: {replies:?}"
        );
        assert!(
            plans
                .iter()
                .all(|(_, plan)| !plan.contains("topic_comments_team_id_created_at_idx")),
            "no statement walks every comment of the team: {plans:?}"
        );
    }

    crate::raw_sql::test_columns_read_the_row!(COLUMNS, topic_comments::table, CommentRow);
}
