//! An item's vote count lives in a row of its own, `feedback_vote_counts`, beside copies of
//! the item's columns the "top" order filters and sorts by (migration
//! `2026-12-06-000001_vote_counts`). Triggers keep the copies equal to the item; a vote writes
//! only the count's row.

mod support;

use sounding_domain::{
    edit::Edit,
    feedback::{CreatedRange, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackView},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
    ids::{BoardId, FeedbackId, FeedbackVoteId, SubscriberId, TeamId},
    page::PageRequest,
    ports::FeedbackStore,
};
use sounding_store_diesel::DieselStore;
use sounding_tests::fixtures::{self, stored_board, subscriber, t0};
use support::{on_every_engine, postgres, sqlite, team, Env};

on_every_engine!(an_items_vote_count_row_follows_the_item_through_its_life);

/// How many `feedback_vote_counts` rows copy the item's keys exactly and count `votes`.
fn faithful_rows(env: &Env, item: FeedbackId, votes: i64) -> i64 {
    env.count(&format!(
        "SELECT COUNT(*) AS n FROM feedback_vote_counts v JOIN feedback f ON f.id = v.id \
         WHERE v.id = '{item}' AND v.vote_count = {votes} AND v.team_id = f.team_id \
         AND v.board_id IS NOT DISTINCT FROM f.board_id \
         AND v.published_at IS NOT DISTINCT FROM f.published_at \
         AND v.archived_at IS NOT DISTINCT FROM f.archived_at AND v.created_at = f.created_at"
    ))
}

/// The team's items on `board` in the top order, archived and unpublished ones included.
fn top_of(board: BoardId) -> FeedbackQuery {
    FeedbackQuery {
        scope: FeedbackScope::Team {
            include_archived: true,
        },
        sort: FeedbackSort::Top,
        statuses: Vec::new(),
        board_id: Some(board),
        tag_id: None,
        search: None,
        trending_since: t0(),
        created: CreatedRange::default(),
        page: PageRequest {
            limit: 20,
            offset: 0,
        },
    }
}

/// Casts the item's first vote, by `voter`.
async fn first_vote(
    store: &DieselStore,
    team: TeamId,
    item: FeedbackId,
    voter: SubscriberId,
    access: VoteAccess,
) {
    let vote = FeedbackVote {
        id: FeedbackVoteId::new(),
        feedback_id: item,
        subscriber_id: voter,
        created_at: t0(),
    };
    let outcome = store.cast_vote(team, &vote, access, &[]).await.unwrap();
    assert!(
        matches!(outcome, VoteOutcome::Cast { total_votes: 1, .. }),
        "{outcome:?}"
    );
}

async fn an_items_vote_count_row_follows_the_item_through_its_life(env: Env) {
    let store = env.store.as_ref().clone();
    let team = team(&store, "a").await;
    let (first, second) = (
        stored_board(&store, team, "first", 0).await,
        stored_board(&store, team, "second", 1).await,
    );
    let author = subscriber(&store, team, "author@example.com").await;
    let item = fixtures::feedback(team, Some(first.id), author.id, "counted001", t0());
    store.insert_feedback(&item, &[], &[]).await.unwrap();
    assert_eq!(faithful_rows(&env, item.id, 0), 1, "inserted with the item");

    first_vote(&store, team, item.id, author.id, VoteAccess::Checked).await;
    assert_eq!(faithful_rows(&env, item.id, 1), 1, "counted");

    // Each edit changes one copied key; the count stays.
    let at = t0().plus_seconds(60);
    for change in 0..3 {
        let board = second.id;
        let edit: Edit<FeedbackView> = Box::new(move |view: &mut FeedbackView| {
            match change {
                0 => view.feedback.board_id = Some(board),
                1 => view.feedback.archived_at = Some(at),
                _ => view.feedback.published_at = None,
            }
            Ok(Vec::new())
        });
        assert!(store
            .edit_feedback(team, item.id, edit)
            .await
            .unwrap()
            .changed());
        assert_eq!(faithful_rows(&env, item.id, 1), 1, "after change {change}");
    }
    // The top order reads the copies: the item left the first board's list for the second's.
    let listed = |board| {
        let store = store.clone();
        async move {
            let page = store.list_feedback(team, &top_of(board)).await.unwrap();
            page.items.iter().map(|v| v.feedback.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(listed(first.id).await, Vec::<FeedbackId>::new());
    assert_eq!(listed(second.id).await, vec![item.id]);

    assert!(store.delete_feedback(team, item.id, &[]).await.unwrap());
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM feedback_vote_counts WHERE id = '{}'",
            item.id
        )),
        0,
        "deleted with the item"
    );
}

/// The point of the count's own row on PostgreSQL: a vote no longer writes a new version of
/// the item's row (and an entry in each of its indexes). Its `xmin`, the transaction that
/// wrote the version read, stays the insert's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_vote_leaves_the_items_row_as_it_was_on_postgres() {
    let Some(env) = postgres().await else {
        return;
    };
    let store = env.store.as_ref().clone();
    let team = team(&store, "a").await;
    let author = subscriber(&store, team, "author@example.com").await;
    let item = fixtures::feedback(team, None, author.id, "counted002", t0());
    store.insert_feedback(&item, &[], &[]).await.unwrap();
    let version = || {
        env.count(&format!(
            "SELECT CAST(CAST(xmin AS TEXT) AS BIGINT) AS n FROM feedback WHERE id = '{}'",
            item.id
        ))
    };
    let before = version();
    first_vote(&store, team, item.id, author.id, VoteAccess::Public).await;
    assert_eq!(version(), before, "the item's row was not written");
}
