//! The feedback store on diesel: items, votes, comments, follows, the list's orders and
//! filters, and what feedback does to boards. Every check runs on SQLite (a temporary file)
//! and, when `SOUNDING_TEST_POSTGRES_URL` names a server whose user may create databases, on
//! a fresh PostgreSQL database too.

mod support;

use serde_json::json;
use sounding_domain::{
    board::{Board, BoardMeta},
    event::{EventKind, NewEvent},
    feedback::{
        BoardRef, Feedback, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus,
        FeedbackView, Priority,
    },
    feedback_comment::{CommentQuery, CommentSort, Direction, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
    ids::{BoardId, FeedbackCommentId, FeedbackId, FeedbackVoteId, SubscriberId, TeamId},
    page::PageRequest,
    ports::{BoardStore, Conflict, FeedbackStore, OutboxStore, StoreError, SubscriberStore},
    subscriber::{Identify, Subscriber, SubscriberRef},
    timestamp::Timestamp,
};
use sounding_store_diesel::DieselStore;
use sounding_tests::overwrite::Overwrite;
use support::{at, on_every_engine, postgres, sqlite, t0, team, Env};

on_every_engine!(
    an_item_reads_back_as_written_with_its_board_and_people,
    a_taken_url_id_is_a_conflict_and_writes_nothing,
    updates_save_everything_but_the_counts,
    fifty_concurrent_votes_on_one_item_all_count,
    a_second_vote_is_refused_and_writes_nothing,
    retracting_twice_counts_once,
    deleting_an_item_removes_its_comments_votes_and_follows,
    lists_are_ordered_newest_top_and_trending,
    lists_are_filtered_by_scope_status_board_and_search,
    boards_count_their_feedback_and_refuse_deletion_while_they_hold_any,
    a_public_boards_total_follows_every_change_to_its_items,
    comments_are_listed_in_order_with_their_authors,
    follows_are_idempotent_and_in_order,
    commits_that_wrote_events_are_announced_and_reads_are_not,
);

// ---------------------------------------------------------------------------------------------
// Fixtures

async fn subscriber(store: &DieselStore, team: TeamId, email: &str) -> Subscriber {
    let input = Identify::new(Some(email), None, None, None, None).unwrap();
    store.identify(team, &input, t0()).await.unwrap().0
}

async fn board(store: &DieselStore, team: TeamId, slug: &str, is_public: bool) -> Board {
    let board = Board {
        id: BoardId::new(),
        team_id: team,
        name: format!("Board {slug}"),
        slug: slug.into(),
        description: String::new(),
        order: 1,
        meta: BoardMeta {
            is_public,
            ..BoardMeta::default()
        },
        created_at: t0(),
        updated_at: t0(),
    };
    store.insert_board(&board).await.unwrap();
    board
}

/// A published item with no board, created at `created_at`.
fn item(team: TeamId, creator: SubscriberId, title: &str, created_at: Timestamp) -> Feedback {
    Feedback {
        id: FeedbackId::new(),
        team_id: team,
        board_id: None,
        url_id: uuid::Uuid::new_v4().simple().to_string()[..10].to_owned(),
        title: title.into(),
        text: String::new(),
        status: FeedbackStatus::InReview,
        priority: Priority::Medium,
        kind: None,
        creator_id: creator,
        meta: Default::default(),
        published_at: Some(created_at),
        archived_at: None,
        created_at,
        updated_at: created_at,
        last_modified_by_id: None,
    }
}

fn event(team: TeamId, kind: EventKind) -> NewEvent {
    NewEvent::new(team, kind, t0(), &[], json!({}))
}

async fn events(store: &DieselStore, team: TeamId) -> Vec<String> {
    store
        .events(team)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect()
}

fn vote(feedback: FeedbackId, subscriber: SubscriberId, created_at: Timestamp) -> FeedbackVote {
    FeedbackVote {
        id: FeedbackVoteId::new(),
        feedback_id: feedback,
        subscriber_id: subscriber,
        created_at,
    }
}

fn comment(
    team: TeamId,
    feedback: FeedbackId,
    author: SubscriberId,
    text: &str,
    created_at: Timestamp,
) -> FeedbackComment {
    FeedbackComment {
        id: FeedbackCommentId::new(),
        team_id: team,
        feedback_id: feedback,
        subscriber_id: author,
        text: text.into(),
        is_private: false,
        created_at,
        updated_at: created_at,
    }
}

fn query(scope: FeedbackScope, sort: FeedbackSort) -> FeedbackQuery {
    FeedbackQuery {
        scope,
        sort,
        statuses: Vec::new(),
        board_id: None,
        tag_id: None,
        search: None,
        trending_since: t0(),
        created: sounding_domain::feedback::CreatedRange::default(),
        page: PageRequest {
            limit: 100,
            offset: 0,
        },
    }
}

const TEAM_ALL: FeedbackScope = FeedbackScope::Team {
    include_archived: true,
};
const TEAM_LIVE: FeedbackScope = FeedbackScope::Team {
    include_archived: false,
};

fn titles(views: &[FeedbackView]) -> Vec<&str> {
    views.iter().map(|v| v.feedback.title.as_str()).collect()
}

async fn list(store: &DieselStore, team: TeamId, query: &FeedbackQuery) -> (Vec<String>, i64) {
    let page = store.list_feedback(team, query).await.unwrap();
    assert_eq!(page.page, query.page);
    (
        titles(&page.items).into_iter().map(str::to_owned).collect(),
        page.total,
    )
}

// ---------------------------------------------------------------------------------------------
// Checks

async fn an_item_reads_back_as_written_with_its_board_and_people(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let editor = subscriber(store, a, "ed@example.com").await;
    let roadmap = board(store, a, "roadmap", false).await;

    let mut f = item(a, jane.id, "Dark Mode", at("2026-03-04T05:06:07.123Z"));
    f.board_id = Some(roadmap.id);
    f.text = "Please, for the NIGHT".into();
    f.kind = Some("idea".into());
    f.status = FeedbackStatus::Planned;
    f.priority = Priority::Urgent;
    f.meta = json!({"source": "widget", "score": 0.1, "nested": {"a": [1, 2]}})
        .as_object()
        .unwrap()
        .clone();
    f.archived_at = Some(at("2026-03-05T00:00:00.001Z"));
    f.updated_at = at("2026-03-04T06:00:00.999Z");
    f.last_modified_by_id = Some(editor.id);
    store
        .insert_feedback(&f, &[], &[event(a, EventKind::NewFeedback)])
        .await
        .unwrap();

    let expected = FeedbackView {
        feedback: f.clone(),
        board: Some(BoardRef {
            id: roadmap.id,
            name: roadmap.name.clone(),
            slug: "roadmap".into(),
            is_public: false,
        }),
        creator: Some(SubscriberRef::from(&jane)),
        last_modified_by: Some(SubscriberRef::from(&editor)),
        vote_count: 0,
        comment_count: 0,
        tags: Vec::new(),
    };
    assert_eq!(
        store.feedback(a, f.id).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        store.feedback_by_url_id(a, &f.url_id).await.unwrap(),
        Some(expected)
    );
    // Another team sees nothing.
    assert_eq!(store.feedback(b, f.id).await.unwrap(), None);
    assert_eq!(store.feedback_by_url_id(b, &f.url_id).await.unwrap(), None);
    // The creator follows; the event is in the outbox.
    assert_eq!(store.followers(a, f.id).await.unwrap(), vec![jane.id]);
    assert_eq!(events(store, a).await, vec!["new_feedback"]);
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM feedback WHERE search_text = 'dark mode\nplease, for the night' AND id = '{}'",
            f.id
        )),
        1
    );

    // A creator whose row is gone reads as none.
    let ghost = item(a, SubscriberId::new(), "Ghost", t0());
    store.insert_feedback(&ghost, &[], &[]).await.unwrap();
    let view = store.feedback(a, ghost.id).await.unwrap().unwrap();
    assert_eq!(
        (view.creator, view.board, view.last_modified_by),
        (None, None, None)
    );
}

async fn a_taken_url_id_is_a_conflict_and_writes_nothing(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let creator = SubscriberId::new();
    let first = item(a, creator, "First", t0());
    store.insert_feedback(&first, &[], &[]).await.unwrap();

    let mut second = item(a, SubscriberId::new(), "Second", t0());
    second.url_id = first.url_id.clone();
    let err = store
        .insert_feedback(&second, &[], &[event(a, EventKind::NewFeedback)])
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::Conflict(Conflict::FeedbackUrlId));
    assert_eq!(store.feedback(a, second.id).await.unwrap(), None);
    assert!(events(store, a).await.is_empty());
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM feedback_follows"), 1);

    // Url ids are unique per team only; and an update onto a taken one conflicts too.
    let mut elsewhere = item(b, creator, "Elsewhere", t0());
    elsewhere.url_id = first.url_id.clone();
    store.insert_feedback(&elsewhere, &[], &[]).await.unwrap();
    let mut third = item(a, creator, "Third", t0());
    store.insert_feedback(&third, &[], &[]).await.unwrap();
    third.url_id = first.url_id.clone();
    assert_eq!(
        store.save_feedback(&third, &[]).await.unwrap_err(),
        StoreError::Conflict(Conflict::FeedbackUrlId)
    );
}

async fn updates_save_everything_but_the_counts(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let roadmap = board(store, a, "roadmap", true).await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let mut f = item(a, jane.id, "Export", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();
    store
        .cast_vote(
            a,
            &vote(f.id, SubscriberId::new(), t0()),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();

    f.title = "Export to CSV".into();
    f.text = "Spreadsheets".into();
    f.board_id = Some(roadmap.id);
    f.status = FeedbackStatus::Completed;
    f.priority = Priority::Low;
    f.kind = Some("bug".into());
    f.published_at = None;
    f.updated_at = at("2026-04-01T00:00:00.500Z");
    f.last_modified_by_id = Some(jane.id);
    assert!(store
        .save_feedback(&f, &[event(a, EventKind::FeedbacksUpdate)])
        .await
        .unwrap());
    let view = store.feedback(a, f.id).await.unwrap().unwrap();
    assert_eq!(view.feedback, f);
    assert_eq!(
        view.vote_count, 1,
        "the count is the store's, not the caller's"
    );
    assert_eq!(view.last_modified_by, Some(SubscriberRef::from(&jane)));
    assert_eq!(view.board.map(|b| b.id), Some(roadmap.id));
    // The search text follows the new title and text.
    let mut q = query(TEAM_ALL, FeedbackSort::Newest);
    q.search = Some("spreadsheets".into());
    assert_eq!(list(store, a, &q).await.1, 1);

    // Gone, or another team's: false and no events.
    let mut other = f.clone();
    other.team_id = team(store, "b").await;
    assert!(!store
        .save_feedback(&other, &[event(other.team_id, EventKind::FeedbacksUpdate)])
        .await
        .unwrap());
    assert!(events(store, other.team_id).await.is_empty());
    assert_eq!(events(store, a).await, vec!["feedbacks.update"]);
}

async fn fifty_concurrent_votes_on_one_item_all_count(env: Env) {
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let f = item(a, SubscriberId::new(), "Popular", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();

    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let v = vote(f.id, SubscriberId::new(), t0());
                store
                    .cast_vote(
                        a,
                        &v,
                        VoteAccess::Checked,
                        &[event(a, EventKind::NewFeedbackVote)],
                    )
                    .await
            })
        })
        .collect();
    let mut totals = Vec::new();
    for task in tasks {
        match task.await.unwrap().unwrap() {
            VoteOutcome::Cast { total_votes, .. } => totals.push(total_votes),
            other => panic!("unexpected {other:?}"),
        }
    }
    totals.sort_unstable();
    assert_eq!(
        totals,
        (1..=50).collect::<Vec<i64>>(),
        "each saw its own count"
    );
    let state = store.vote_state(a, f.id, None).await.unwrap().unwrap();
    assert_eq!(state.count, 50);
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM feedback_votes"), 50);
    assert_eq!(events(&store, a).await.len(), 50);
}

async fn a_second_vote_is_refused_and_writes_nothing(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let f = item(a, SubscriberId::new(), "Once", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();
    let voter = SubscriberId::new();

    let first = vote(f.id, voter, at("2026-03-04T05:06:08.001Z"));
    assert_eq!(
        store
            .cast_vote(
                a,
                &first,
                VoteAccess::Checked,
                &[event(a, EventKind::NewFeedbackVote)]
            )
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: first.clone(),
            total_votes: 1
        }
    );
    let again = vote(f.id, voter, at("2026-03-04T05:06:09.001Z"));
    assert_eq!(
        store
            .cast_vote(
                a,
                &again,
                VoteAccess::Checked,
                &[event(a, EventKind::NewFeedbackVote)]
            )
            .await
            .unwrap(),
        VoteOutcome::AlreadyVoted
    );
    let state = store
        .vote_state(a, f.id, Some(voter))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(state.count, 1);
    assert_eq!(state.vote, Some(first), "the first vote stays");
    assert_eq!(events(store, a).await.len(), 1);
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM feedback_votes"), 1);

    // Someone else's state, a missing item, another team's item.
    let other = store
        .vote_state(a, f.id, Some(SubscriberId::new()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((other.count, other.vote), (1, None));
    assert_eq!(
        store.vote_state(a, FeedbackId::new(), None).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .cast_vote(b, &vote(f.id, voter, t0()), VoteAccess::Checked, &[])
            .await
            .unwrap(),
        VoteOutcome::NotFound
    );
    assert_eq!(
        store
            .cast_vote(
                a,
                &vote(FeedbackId::new(), voter, t0()),
                VoteAccess::Checked,
                &[event(a, EventKind::NewFeedbackVote)]
            )
            .await
            .unwrap(),
        VoteOutcome::NotFound
    );
    assert_eq!(events(store, a).await.len(), 1);
}

async fn retracting_twice_counts_once(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let f = item(a, SubscriberId::new(), "Undecided", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();
    let (x, y) = (SubscriberId::new(), SubscriberId::new());
    for voter in [x, y] {
        store
            .cast_vote(a, &vote(f.id, voter, t0()), VoteAccess::Checked, &[])
            .await
            .unwrap();
    }
    assert_eq!(store.retract_vote(a, f.id, x).await.unwrap(), Some(1));
    assert_eq!(store.retract_vote(a, f.id, x).await.unwrap(), Some(1));
    assert_eq!(
        store
            .vote_state(a, f.id, Some(x))
            .await
            .unwrap()
            .unwrap()
            .vote,
        None
    );
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM feedback_votes"), 1);
    assert_eq!(
        store.retract_vote(a, FeedbackId::new(), y).await.unwrap(),
        None
    );
    let b = team(store, "b").await;
    assert_eq!(store.retract_vote(b, f.id, y).await.unwrap(), None);
    // After a retraction the subscriber may vote again.
    assert!(matches!(
        store
            .cast_vote(a, &vote(f.id, x, t0()), VoteAccess::Checked, &[])
            .await
            .unwrap(),
        VoteOutcome::Cast { total_votes: 2, .. }
    ));
}

async fn deleting_an_item_removes_its_comments_votes_and_follows(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let f = item(a, jane.id, "Doomed", t0());
    let kept = item(a, jane.id, "Kept", t0());
    for i in [&f, &kept] {
        store.insert_feedback(i, &[], &[]).await.unwrap();
        store
            .cast_vote(a, &vote(i.id, jane.id, t0()), VoteAccess::Checked, &[])
            .await
            .unwrap();
        assert!(store
            .insert_comment(&comment(a, i.id, SubscriberId::new(), "me too", t0()), &[])
            .await
            .unwrap());
        assert!(store
            .set_following(a, i.id, SubscriberId::new(), true, t0())
            .await
            .unwrap());
    }
    let in_f = |table: &str| {
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM {table} WHERE feedback_id = '{}'",
            f.id
        ))
    };
    assert_eq!(
        (
            in_f("feedback_votes"),
            in_f("feedback_comments"),
            in_f("feedback_follows")
        ),
        (1, 1, 3)
    );

    // Another team cannot delete it.
    assert!(!store
        .delete_feedback(b, f.id, &[event(b, EventKind::FeedbacksDelete)])
        .await
        .unwrap());
    assert!(events(store, b).await.is_empty());

    assert!(store
        .delete_feedback(a, f.id, &[event(a, EventKind::FeedbacksDelete)])
        .await
        .unwrap());
    assert_eq!(
        (
            in_f("feedback_votes"),
            in_f("feedback_comments"),
            in_f("feedback_follows")
        ),
        (0, 0, 0)
    );
    assert_eq!(store.feedback(a, f.id).await.unwrap(), None);
    assert_eq!(events(store, a).await, vec!["feedbacks.delete"]);
    // Twice: false, no event.
    assert!(!store
        .delete_feedback(a, f.id, &[event(a, EventKind::FeedbacksDelete)])
        .await
        .unwrap());
    assert_eq!(events(store, a).await.len(), 1);
    // The other item keeps everything.
    let view = store.feedback(a, kept.id).await.unwrap().unwrap();
    assert_eq!((view.vote_count, view.comment_count), (1, 1));
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM feedback_follows"), 3);
    // Writes on the deleted item report it gone.
    assert!(!store
        .insert_comment(&comment(a, f.id, jane.id, "late", t0()), &[])
        .await
        .unwrap());
    assert!(!store
        .set_following(a, f.id, jane.id, true, t0())
        .await
        .unwrap());
}

async fn lists_are_ordered_newest_top_and_trending(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let now = at("2026-06-01T12:00:00.000Z");
    let since = now.plus_seconds(-7 * 24 * 3600);
    let long_ago = now.plus_seconds(-30 * 24 * 3600);
    let creator = SubscriberId::new();

    // `old`: three votes, all before the window. `hot`: one vote and one comment in it.
    // `fresh`: newest, no activity. `chatty`: two comments in the window, one before.
    let old = item(a, creator, "old", at("2026-04-01T00:00:00.000Z"));
    let hot = item(a, creator, "hot", at("2026-04-02T00:00:00.000Z"));
    let chatty = item(a, creator, "chatty", at("2026-04-03T00:00:00.000Z"));
    let fresh = item(a, creator, "fresh", at("2026-05-31T00:00:00.000Z"));
    for i in [&old, &hot, &chatty, &fresh] {
        store.insert_feedback(i, &[], &[]).await.unwrap();
    }
    for _ in 0..3 {
        store
            .cast_vote(
                a,
                &vote(old.id, SubscriberId::new(), long_ago),
                VoteAccess::Checked,
                &[],
            )
            .await
            .unwrap();
    }
    store
        .cast_vote(
            a,
            &vote(hot.id, SubscriberId::new(), since),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    store
        .insert_comment(&comment(a, hot.id, creator, "+1", now), &[])
        .await
        .unwrap();
    store
        .insert_comment(
            &comment(a, chatty.id, creator, "a", since.plus_seconds(1)),
            &[],
        )
        .await
        .unwrap();
    store
        .insert_comment(&comment(a, chatty.id, creator, "b", now), &[])
        .await
        .unwrap();
    store
        .insert_comment(&comment(a, chatty.id, creator, "c", long_ago), &[])
        .await
        .unwrap();
    // Another team's recent activity on its own item does not leak into the scores.
    let b = team(store, "b").await;
    let theirs = item(b, creator, "theirs", now);
    store.insert_feedback(&theirs, &[], &[]).await.unwrap();
    for _ in 0..5 {
        store
            .cast_vote(
                b,
                &vote(theirs.id, SubscriberId::new(), now),
                VoteAccess::Checked,
                &[],
            )
            .await
            .unwrap();
    }

    let mut q = query(TEAM_ALL, FeedbackSort::Newest);
    q.trending_since = since;
    assert_eq!(
        list(store, a, &q).await,
        (
            vec!["fresh".into(), "chatty".into(), "hot".into(), "old".into()],
            4
        )
    );
    q.sort = FeedbackSort::Top;
    assert_eq!(
        list(store, a, &q).await.0,
        vec!["old", "hot", "fresh", "chatty"]
    );
    q.sort = FeedbackSort::Trending;
    assert_eq!(
        list(store, a, &q).await.0,
        vec!["chatty", "hot", "fresh", "old"],
        "scores 2, 2, 0, 0; ties newest first; old votes do not count"
    );
    // Pages cut the same order; the total is of everything selected.
    q.page = PageRequest {
        limit: 2,
        offset: 1,
    };
    assert_eq!(
        list(store, a, &q).await,
        (vec!["hot".into(), "fresh".into()], 4)
    );
    q.page = PageRequest {
        limit: 2,
        offset: 10,
    };
    assert_eq!(list(store, a, &q).await, (vec![], 4));

    // The views in a list carry their counts and people like a single read.
    let page = store
        .list_feedback(a, &query(TEAM_ALL, FeedbackSort::Top))
        .await
        .unwrap();
    assert_eq!(
        page.items[0],
        store.feedback(a, old.id).await.unwrap().unwrap()
    );
    assert_eq!(
        (page.items[0].vote_count, page.items[0].comment_count),
        (3, 0)
    );
}

async fn lists_are_filtered_by_scope_status_board_and_search(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let open = board(store, a, "open", true).await;
    let hidden = board(store, a, "hidden", false).await;
    let mut n = 0;
    let mut next = |title: &str| {
        n += 1;
        item(a, jane.id, title, t0().plus_seconds(n))
    };

    let loose = next("loose");
    let mut on_open = next("on open");
    on_open.board_id = Some(open.id);
    on_open.status = FeedbackStatus::Planned;
    let mut on_hidden = next("on hidden");
    on_hidden.board_id = Some(hidden.id);
    let mut unpublished = next("unpublished");
    unpublished.published_at = None;
    unpublished.board_id = Some(open.id);
    let mut archived = next("archived");
    archived.archived_at = Some(t0());
    archived.status = FeedbackStatus::Closed;
    let mut percent = next("50% off");
    percent.text = "Under_score and back\\slash".into();
    let mut lookalike = next("500 offers");
    lookalike.text = "underXscore".into();
    for i in [
        &loose,
        &on_open,
        &on_hidden,
        &unpublished,
        &archived,
        &percent,
        &lookalike,
    ] {
        store.insert_feedback(i, &[], &[]).await.unwrap();
    }

    let q = |scope| query(scope, FeedbackSort::Newest);
    assert_eq!(
        list(store, a, &q(FeedbackScope::Public)).await,
        (
            vec![
                "500 offers".into(),
                "50% off".into(),
                "on open".into(),
                "loose".into()
            ],
            4
        )
    );
    assert_eq!(
        list(store, a, &q(TEAM_LIVE)).await.0,
        vec![
            "500 offers",
            "50% off",
            "unpublished",
            "on hidden",
            "on open",
            "loose"
        ]
    );
    assert_eq!(list(store, a, &q(TEAM_ALL)).await.1, 7);

    let mut by_status = q(TEAM_ALL);
    by_status.statuses = vec![FeedbackStatus::Planned, FeedbackStatus::Closed];
    assert_eq!(
        list(store, a, &by_status).await.0,
        vec!["archived", "on open"]
    );

    let mut by_board = q(TEAM_LIVE);
    by_board.board_id = Some(open.id);
    assert_eq!(
        list(store, a, &by_board).await.0,
        vec!["unpublished", "on open"]
    );
    by_board.scope = FeedbackScope::Public;
    assert_eq!(list(store, a, &by_board).await.0, vec!["on open"]);
    by_board.board_id = Some(hidden.id);
    assert_eq!(list(store, a, &by_board).await, (vec![], 0));

    let search = |term: &str| {
        let mut s = q(TEAM_ALL);
        s.search = Some(term.into());
        s
    };
    assert_eq!(list(store, a, &search("50%")).await.0, vec!["50% off"]);
    assert_eq!(list(store, a, &search("r_s")).await.0, vec!["50% off"]);
    assert_eq!(list(store, a, &search("k\\s")).await.0, vec!["50% off"]);
    assert_eq!(
        list(store, a, &search("off")).await.0,
        vec!["500 offers", "50% off"]
    );
    assert_eq!(list(store, a, &search("%")).await.0, vec!["50% off"]);
    assert_eq!(
        list(store, a, &search("nothing like it")).await,
        (vec![], 0)
    );
    // Filters combine.
    let mut combined = search("o");
    combined.scope = FeedbackScope::Public;
    combined.statuses = vec![FeedbackStatus::Planned];
    assert_eq!(list(store, a, &combined).await.0, vec!["on open"]);
    // Another team's list is its own.
    let b = team(store, "b").await;
    assert_eq!(list(store, b, &q(TEAM_ALL)).await, (vec![], 0));
}

async fn boards_count_their_feedback_and_refuse_deletion_while_they_hold_any(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let creator = SubscriberId::new();
    let full = board(store, a, "full", true).await;
    let archive_only = board(store, a, "archive-only", true).await;
    let empty = board(store, a, "empty", false).await;

    let mut published = item(a, creator, "published", t0());
    published.board_id = Some(full.id);
    let mut pending = item(a, creator, "pending", t0());
    pending.board_id = Some(full.id);
    pending.published_at = None;
    let mut archived = item(a, creator, "archived", t0());
    archived.board_id = Some(full.id);
    archived.archived_at = Some(t0());
    let mut archived_elsewhere = item(a, creator, "archived elsewhere", t0());
    archived_elsewhere.board_id = Some(archive_only.id);
    archived_elsewhere.archived_at = Some(t0());
    let loose = item(a, creator, "loose", t0());
    for i in [&published, &pending, &archived, &archived_elsewhere, &loose] {
        store.insert_feedback(i, &[], &[]).await.unwrap();
    }

    let counts: Vec<(String, i64)> = store
        .boards(a, false)
        .await
        .unwrap()
        .into_iter()
        .map(|v| (v.board.slug, v.feedback_count))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("full".into(), 2),
            ("archive-only".into(), 0),
            ("empty".into(), 0)
        ]
    );
    assert_eq!(
        store
            .board(a, full.id)
            .await
            .unwrap()
            .unwrap()
            .feedback_count,
        2
    );
    assert_eq!(
        store
            .board(a, empty.id)
            .await
            .unwrap()
            .unwrap()
            .feedback_count,
        0
    );

    let not_empty = StoreError::Conflict(Conflict::BoardNotEmpty);
    assert_eq!(store.delete_board(a, full.id).await.unwrap_err(), not_empty);
    assert_eq!(
        store.delete_board(a, archive_only.id).await.unwrap_err(),
        not_empty,
        "archived feedback keeps its board too"
    );
    assert!(store.board(a, full.id).await.unwrap().is_some());
    assert!(store.delete_board(a, empty.id).await.unwrap());
    assert!(!store.delete_board(a, empty.id).await.unwrap());
    // Another team's id: nothing to delete, whatever it holds.
    let b = team(store, "b").await;
    assert!(!store.delete_board(b, full.id).await.unwrap());

    // Once its items are gone (or moved), the board can go.
    for i in [&published, &pending, &archived] {
        assert!(store.delete_feedback(a, i.id, &[]).await.unwrap());
    }
    assert!(store.delete_board(a, full.id).await.unwrap());
    let mut moved = archived_elsewhere.clone();
    moved.board_id = None;
    assert!(store.save_feedback(&moved, &[]).await.unwrap());
    assert!(store.delete_board(a, archive_only.id).await.unwrap());
}

/// A public board's list without filters reads its total from `feedback_public_counts`, which
/// triggers keep; asking for every status takes the counting path. The two must agree after
/// each change, and match what was done.
async fn a_public_boards_total_follows_every_change_to_its_items(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let mut x = board(store, a, "x", true).await;
    let y = board(store, a, "y", true).await;
    let hidden = board(store, a, "hidden", false).await;
    let totals = |team: TeamId, board: BoardId| async move {
        let mut q = query(FeedbackScope::Public, FeedbackSort::Top);
        q.board_id = Some(board);
        let kept = list(store, team, &q).await.1;
        q.statuses = vec![
            FeedbackStatus::InReview,
            FeedbackStatus::InProgress,
            FeedbackStatus::Planned,
            FeedbackStatus::Completed,
            FeedbackStatus::Closed,
        ];
        let counted = list(store, team, &q).await.1;
        assert_eq!(kept, counted, "kept and counted totals of {board}");
        kept
    };
    let on = |board: &Board, title: &str, published: bool| {
        let mut f = item(a, jane.id, title, t0());
        f.board_id = Some(board.id);
        if !published {
            f.published_at = None;
        }
        f
    };

    let mut items = Vec::new();
    for (board, title, published) in [
        (&x, "x1", true),
        (&x, "x2", true),
        (&x, "x3", true),
        (&x, "draft", false),
        (&y, "y1", true),
        (&hidden, "h1", true),
    ] {
        let f = on(board, title, published);
        store.insert_feedback(&f, &[], &[]).await.unwrap();
        items.push(f);
    }
    assert_eq!((totals(a, x.id).await, totals(a, y.id).await), (3, 1));
    assert_eq!(
        totals(a, hidden.id).await,
        0,
        "a private board lists nothing"
    );
    assert_eq!(
        totals(b, x.id).await,
        0,
        "another team's board lists nothing"
    );

    // Published, archived, moved, unarchived, deleted: each moves the totals.
    let save = |f: Feedback| async move { assert!(store.save_feedback(&f, &[]).await.unwrap()) };
    items[3].published_at = Some(t0());
    save(items[3].clone()).await;
    assert_eq!(totals(a, x.id).await, 4);
    items[0].archived_at = Some(t0());
    save(items[0].clone()).await;
    assert_eq!(totals(a, x.id).await, 3);
    items[1].board_id = Some(y.id);
    save(items[1].clone()).await;
    assert_eq!((totals(a, x.id).await, totals(a, y.id).await), (2, 2));
    items[0].archived_at = None;
    save(items[0].clone()).await;
    assert_eq!(totals(a, x.id).await, 3);
    // A change to anything else leaves the totals as they are.
    items[2].title = "x3, renamed".into();
    items[2].status = FeedbackStatus::Planned;
    save(items[2].clone()).await;
    assert_eq!(totals(a, x.id).await, 3);
    assert!(store.delete_feedback(a, items[4].id, &[]).await.unwrap());
    assert_eq!(totals(a, y.id).await, 1);

    // The board's own visibility counts too.
    x.meta.is_public = false;
    store.save_board(&x).await.unwrap();
    assert_eq!(totals(a, x.id).await, 0);
    x.meta.is_public = true;
    store.save_board(&x).await.unwrap();
    assert_eq!(totals(a, x.id).await, 3);
}

async fn comments_are_listed_in_order_with_their_authors(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let joe = subscriber(store, a, "joe@example.com").await;
    let f = item(a, jane.id, "Talk", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();

    let mut first = comment(a, f.id, joe.id, "first", at("2026-03-05T00:00:00.001Z"));
    first.updated_at = at("2026-03-09T00:00:00.000Z");
    let mut private = comment(a, f.id, jane.id, "private", at("2026-03-06T00:00:00.000Z"));
    private.is_private = true;
    let gone = comment(
        a,
        f.id,
        SubscriberId::new(),
        "gone",
        at("2026-03-07T00:00:00.000Z"),
    );
    for c in [&first, &private, &gone] {
        assert!(store
            .insert_comment(c, &[event(a, EventKind::FeedbackCommentsCreate)])
            .await
            .unwrap());
    }
    assert_eq!(events(store, a).await.len(), 3);
    let view = store.feedback(a, f.id).await.unwrap().unwrap();
    assert_eq!(view.comment_count, 3);

    let mut q = CommentQuery {
        include_private: false,
        sort: CommentSort::CreatedAt,
        direction: Direction::Asc,
        page: PageRequest {
            limit: 10,
            offset: 0,
        },
    };
    let page = store.comments(a, f.id, &q).await.unwrap();
    assert_eq!(page.total, 2);
    let texts =
        |p: &sounding_domain::page::Paged<sounding_domain::feedback_comment::CommentView>| {
            p.items
                .iter()
                .map(|c| c.comment.text.clone())
                .collect::<Vec<_>>()
        };
    assert_eq!(texts(&page), vec!["first", "gone"]);
    assert_eq!(page.items[0].comment, first);
    assert_eq!(page.items[0].author, Some(SubscriberRef::from(&joe)));
    assert_eq!(page.items[1].author, None);

    q.include_private = true;
    q.direction = Direction::Desc;
    let page = store.comments(a, f.id, &q).await.unwrap();
    assert_eq!(
        (texts(&page), page.total),
        (vec!["gone".into(), "private".into(), "first".into()], 3)
    );
    assert_eq!(page.items[1].author, Some(SubscriberRef::from(&jane)));
    q.sort = CommentSort::UpdatedAt;
    q.page = PageRequest {
        limit: 1,
        offset: 0,
    };
    let page = store.comments(a, f.id, &q).await.unwrap();
    assert_eq!((texts(&page), page.total), (vec!["first".into()], 3));

    // A missing item, or another team: an empty page.
    let b = team(store, "b").await;
    for (team, id) in [(a, FeedbackId::new()), (b, f.id)] {
        let page = store.comments(team, id, &q).await.unwrap();
        assert_eq!((page.items.len(), page.total), (0, 0));
    }
    // Commenters follow, once each, after the creator.
    assert_eq!(
        store.followers(a, f.id).await.unwrap()[..2],
        [jane.id, joe.id]
    );
    assert_eq!(store.followers(a, f.id).await.unwrap().len(), 3);
}

async fn follows_are_idempotent_and_in_order(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let creator = SubscriberId::new();
    let f = item(a, creator, "Follow me", t0());
    store.insert_feedback(&f, &[], &[]).await.unwrap();
    let fan = SubscriberId::new();

    assert!(store.set_following(a, f.id, fan, true, t0()).await.unwrap());
    assert!(store.set_following(a, f.id, fan, true, t0()).await.unwrap());
    // The creator followed at creation (t0), the fan later (now).
    assert_eq!(store.followers(a, f.id).await.unwrap(), vec![creator, fan]);
    assert!(store
        .set_following(a, f.id, creator, false, t0())
        .await
        .unwrap());
    assert!(store
        .set_following(a, f.id, creator, false, t0())
        .await
        .unwrap());
    assert_eq!(store.followers(a, f.id).await.unwrap(), vec![fan]);

    assert!(!store.set_following(b, f.id, fan, true, t0()).await.unwrap());
    assert!(!store
        .set_following(a, FeedbackId::new(), fan, true, t0())
        .await
        .unwrap());
    assert!(store.followers(b, f.id).await.unwrap().is_empty());
    assert!(store
        .followers(a, FeedbackId::new())
        .await
        .unwrap()
        .is_empty());
}

async fn commits_that_wrote_events_are_announced_and_reads_are_not(env: Env) {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };
    let announced = Arc::new(AtomicUsize::new(0));
    let store = env.store.as_ref().clone().on_events_committed({
        let announced = announced.clone();
        Arc::new(move || {
            announced.fetch_add(1, Ordering::SeqCst);
        })
    });
    let a = team(&store, "a").await;
    let jane = subscriber(&store, a, "jane@example.com").await;
    let before = announced.load(Ordering::SeqCst);

    let f = item(a, jane.id, "Dark Mode", t0());
    store
        .insert_feedback(&f, &[], &[event(a, EventKind::NewFeedback)])
        .await
        .unwrap();
    assert_eq!(announced.load(Ordering::SeqCst), before + 1);

    // Reads, and a write without events, wake nobody.
    store.feedback(a, f.id).await.unwrap().unwrap();
    store
        .list_feedback(a, &query(TEAM_ALL, FeedbackSort::Newest))
        .await
        .unwrap();
    store
        .insert_feedback(&item(a, jane.id, "Quiet", t0()), &[], &[])
        .await
        .unwrap();
    assert_eq!(announced.load(Ordering::SeqCst), before + 1);
}
