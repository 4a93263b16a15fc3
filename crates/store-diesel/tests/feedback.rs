//! The feedback store on diesel, where diesel has its own machinery: a public board's total
//! kept by triggers (`feedback_public_counts`), and the wake-up call after commits that wrote
//! events (`on_events_committed`).
//! Behaviour through the ports lives in the port-contract suite (`tests/tests/port_contract`),
//! run on every store; checks here that still go through a port are not in it yet (to be moved
//! there). Each runs on SQLite and, when `SOUNDING_TEST_POSTGRES_URL` names a server, on a fresh
//! PostgreSQL database too.

mod support;

use sounding_domain::{
    board::Board,
    event::EventKind,
    feedback::{
        Feedback, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus, FeedbackView,
    },
    ids::{BoardId, SubscriberId, TeamId},
    ports::{BoardStore, FeedbackStore},
    timestamp::Timestamp,
};
use sounding_store_diesel::DieselStore;
use sounding_tests::{
    fixtures::{self, event, list_query as query, subscriber, t0},
    overwrite::Overwrite,
};
use support::{on_every_engine, postgres, sqlite, team, Env};

on_every_engine!(
    a_public_boards_total_follows_every_change_to_its_items,
    commits_that_wrote_events_are_announced_and_reads_are_not,
);

// ---------------------------------------------------------------------------------------------
// Fixtures (beyond the shared ones)

async fn board(store: &DieselStore, team: TeamId, slug: &str, is_public: bool) -> Board {
    let mut board = fixtures::board(team, slug, 1, t0());
    board.meta.is_public = is_public;
    store.insert_board(&board).await.unwrap();
    board
}

/// A published item with no board titled `title` (the lists here are compared by title), with
/// a fresh url id.
fn item(team: TeamId, creator: SubscriberId, title: &str, created_at: Timestamp) -> Feedback {
    let url_id = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    Feedback {
        title: title.into(),
        ..fixtures::feedback(team, None, creator, &url_id, created_at)
    }
}

const TEAM_ALL: FeedbackScope = FeedbackScope::Team {
    include_archived: true,
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
        .insert_feedback(&f, &[], &[event(a, EventKind::NewFeedback, t0(), 0)])
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
