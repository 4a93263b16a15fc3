//! `FeedbackCurationStore`: saving an item with a new set of tags, merging an item into
//! another, and counting items per status. Each write is one `write_tx` with its events.

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    feedback::{Feedback, FeedbackStatus},
    feedback_merge::{FeedbackCounts, FeedbackMerge, MergeEvents, MergeOutcome},
    ids::{BoardId, TeamId},
    ports::{FeedbackCurationStore, StoreResult},
};

use super::{
    lock_item,
    rows::{FeedbackChanges, FeedbackRow},
    view::{self, Pick},
    Lock,
};
use crate::{
    connection::{per_backend, DbConnection},
    error::{DbError, DbResult},
    raw_sql::RawSql,
    repos::outbox::insert_events,
    schema::{
        feedback, feedback_comments, feedback_follows, feedback_tags, feedback_vote_counts,
        feedback_votes,
    },
    tx::write_tx,
    DieselStore,
};

/// Saves every field of the item but its counts; whether it was there.
pub(super) fn save_fields(conn: &mut DbConnection, feedback: &Feedback) -> DbResult<bool> {
    let changes = FeedbackChanges::of(feedback)?;
    let updated = diesel::update(
        feedback::table
            .filter(feedback::id.eq(feedback.id.to_string()))
            .filter(feedback::team_id.eq(feedback.team_id.to_string())),
    )
    .set(&changes)
    .execute(conn)?;
    Ok(updated > 0)
}

/// Replaces the item's tags with `tags` (all of the team's; checked by the caller).
pub(super) fn retag(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    tags: &[String],
) -> DbResult<()> {
    diesel::delete(feedback_tags::table.filter(feedback_tags::feedback_id.eq(id))).execute(conn)?;
    if !tags.is_empty() {
        let rows: Vec<_> = tags
            .iter()
            .map(|tag| {
                (
                    feedback_tags::feedback_id.eq(id),
                    feedback_tags::tag_id.eq(tag),
                    feedback_tags::team_id.eq(team),
                )
            })
            .collect();
        // Batch inserts are per backend in diesel.
        per_backend!(conn, |inner| diesel::insert_into(feedback_tags::table)
            .values(&rows)
            .execute(inner))?;
    }
    Ok(())
}

/// Sets the item's vote and comment counts (all, and private) to the number of its rows.
fn recount(conn: &mut DbConnection, id: &str) -> DbResult<()> {
    let votes: i64 = feedback_votes::table
        .filter(feedback_votes::feedback_id.eq(id))
        .count()
        .get_result(conn)?;
    let comments: i64 = feedback_comments::table
        .filter(feedback_comments::feedback_id.eq(id))
        .count()
        .get_result(conn)?;
    let private_comments: i64 = feedback_comments::table
        .filter(feedback_comments::feedback_id.eq(id))
        .filter(feedback_comments::is_private.eq(true))
        .count()
        .get_result(conn)?;
    diesel::update(feedback_vote_counts::table.find(id))
        .set(feedback_vote_counts::vote_count.eq(votes))
        .execute(conn)?;
    diesel::update(feedback::table.find(id))
        .set((
            feedback::comment_count.eq(comments),
            feedback::private_comment_count.eq(private_comments),
        ))
        .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct StatusCount {
    #[diesel(sql_type = diesel::sql_types::Text)]
    bucket: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// The bucket name archived items are counted under (never a status name).
const ARCHIVED: &str = "archived";

#[async_trait]
impl FeedbackCurationStore for DieselStore {
    async fn merge_feedback(
        &self,
        merge: &FeedbackMerge,
        events: MergeEvents,
    ) -> StoreResult<MergeOutcome> {
        let merge = merge.clone();
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let team = merge.team_id.to_string();
                let (source, target) = (merge.source_id.to_string(), merge.target_id.to_string());
                // Both rows locked, in id order so two opposite merges cannot deadlock.
                let mut order = [source.as_str(), target.as_str()];
                order.sort_unstable();
                for id in order {
                    if !lock_item(conn, &team, id, Lock::Update)? {
                        return Ok(MergeOutcome::Missing);
                    }
                }
                // Read under the locks, so a change committed to either item meanwhile is
                // kept (`FeedbackMerge::apply` changes only what a merge changes).
                let mut items = Vec::with_capacity(2);
                for id in [&source, &target] {
                    let Some(row) = feedback::table
                        .find(id)
                        .select(FeedbackRow::as_select())
                        .get_result(conn)
                        .optional()?
                    else {
                        return Ok(MergeOutcome::Missing);
                    };
                    let item = row.into_feedback()?;
                    if item.archived_at.is_some() {
                        return Ok(MergeOutcome::Archived);
                    }
                    items.push(item);
                }
                let (Some(mut target_item), Some(mut source_item)) = (items.pop(), items.pop())
                else {
                    return Ok(MergeOutcome::Missing);
                };
                merge.apply(&mut source_item, &mut target_item);
                save_fields(conn, &source_item)?;
                save_fields(conn, &target_item)?;

                // Votes and follows: the source's rows of subscribers the target already has
                // go; the rest move. Comments all move.
                diesel::delete(
                    feedback_votes::table
                        .filter(feedback_votes::feedback_id.eq(&source))
                        .filter(
                            feedback_votes::subscriber_id.eq_any(
                                voters_alias()
                                    .filter(
                                        voters_alias()
                                            .field(feedback_votes::feedback_id)
                                            .eq(&target),
                                    )
                                    .select(voters_alias().field(feedback_votes::subscriber_id)),
                            ),
                        ),
                )
                .execute(conn)?;
                diesel::update(
                    feedback_votes::table.filter(feedback_votes::feedback_id.eq(&source)),
                )
                .set(feedback_votes::feedback_id.eq(&target))
                .execute(conn)?;
                diesel::delete(
                    feedback_follows::table
                        .filter(feedback_follows::feedback_id.eq(&source))
                        .filter(
                            feedback_follows::subscriber_id.eq_any(
                                followers_alias()
                                    .filter(
                                        followers_alias()
                                            .field(feedback_follows::feedback_id)
                                            .eq(&target),
                                    )
                                    .select(
                                        followers_alias().field(feedback_follows::subscriber_id),
                                    ),
                            ),
                        ),
                )
                .execute(conn)?;
                diesel::update(
                    feedback_follows::table.filter(feedback_follows::feedback_id.eq(&source)),
                )
                .set(feedback_follows::feedback_id.eq(&target))
                .execute(conn)?;
                diesel::update(
                    feedback_comments::table.filter(feedback_comments::feedback_id.eq(&source)),
                )
                .set(feedback_comments::feedback_id.eq(&target))
                .execute(conn)?;
                recount(conn, &source)?;
                recount(conn, &target)?;

                let mut views = view::read(conn, &team, Pick::Ids(&[&target, &source]))?;
                let position =
                    |id: &str| views.iter().position(|v| v.feedback.id.to_string() == id);
                let (Some(t), Some(_)) = (position(&target), position(&source)) else {
                    return Err(DbError::corrupt("feedback", "merged item vanished"));
                };
                let target_view = views.remove(t);
                let source_view = views
                    .pop()
                    .ok_or_else(|| DbError::corrupt("feedback", "merged item vanished"))?;
                insert_events(conn, &events(&target_view, &source_view))?;
                Ok(MergeOutcome::Merged {
                    target: Box::new(target_view),
                    source: Box::new(source_view),
                })
            })
        })
        .await
    }

    async fn count_feedback(
        &self,
        team: TeamId,
        board: Option<BoardId>,
    ) -> StoreResult<FeedbackCounts> {
        let (team, board) = (team.to_string(), board.map(|b| b.to_string()));
        self.run_read(move |conn| {
            // One statement over the kept counts (`feedback_counts`, see list.rs), never over
            // the items: archived ones (listing 2) fall in their own bucket, the others in
            // their status's.
            let mut sql = RawSql::new();
            sql.push("SELECT CASE WHEN listing = 2 THEN ")
                .text(ARCHIVED)
                .push(
                    " ELSE status END AS bucket, CAST(SUM(n) AS BIGINT) AS n \
                     FROM feedback_counts WHERE team_id = ",
                )
                .text(team.as_str());
            if let Some(board) = &board {
                sql.push(" AND board_id = ").text(board.as_str());
            }
            sql.push(" GROUP BY 1");
            let mut counts = FeedbackCounts::default();
            for row in sql.load::<StatusCount>(conn)? {
                if row.bucket == ARCHIVED {
                    counts.archived += row.n;
                } else {
                    let status = FeedbackStatus::parse(&row.bucket)
                        .map_err(|e| DbError::corrupt("feedback.status", e))?;
                    counts.add(status, false, row.n);
                }
            }
            Ok(counts)
        })
        .await
    }
}

diesel::alias!(
    feedback_votes as target_votes: TargetVotes,
    feedback_follows as target_follows: TargetFollows
);

fn voters_alias() -> diesel::query_source::Alias<TargetVotes> {
    target_votes
}

fn followers_alias() -> diesel::query_source::Alias<TargetFollows> {
    target_follows
}
