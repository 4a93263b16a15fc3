//! The feedback store on diesel, where diesel has its own machinery: a public board's total
//! and every board's `feedback_count`, kept by triggers (`feedback_public_counts`,
//! `feedback_board_counts`), and the wake-up call after commits that wrote events
//! (`on_events_committed`).
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
    feedback_merge::{FeedbackMerge, MergeOutcome},
    ids::{BoardId, SubscriberId, TeamId},
    ports::{BoardStore, FeedbackCurationStore, FeedbackStore},
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
    every_lists_kept_total_follows_every_change_to_its_items,
    a_comment_lists_total_follows_every_change_to_its_comments,
    a_boards_feedback_count_follows_every_change_to_its_items,
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
/// triggers keep; a date range takes the counting path. The two must agree after each change,
/// and match what was done.
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
        let counted = counted_total(store, team, &q).await;
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

/// The list's total the slow way: the same query with a date range that holds every item,
/// which the store answers by counting the items themselves.
async fn counted_total(store: &DieselStore, team: TeamId, query: &FeedbackQuery) -> i64 {
    let mut q = query.clone();
    q.created.from = Some(t0().plus_seconds(-86_400));
    list(store, team, &q).await.1
}

/// Every list without a tag, search or date range reads its total from `feedback_counts`,
/// which triggers keep per team, board, status and listing. After each kind of change to an
/// item or a board, the kept total of every scope, board and status filter must equal the
/// counted one, and match what was done.
async fn every_lists_kept_total_follows_every_change_to_its_items(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let bob = subscriber(store, b, "bob@example.com").await;
    let mut x = board(store, a, "x", true).await;
    let y = board(store, a, "y", false).await;
    let team_open = FeedbackScope::Team {
        include_archived: false,
    };
    let scopes = [FeedbackScope::Public, team_open, TEAM_ALL];
    let status_sets = [
        Vec::new(),
        vec![FeedbackStatus::InReview],
        vec![FeedbackStatus::Planned, FeedbackStatus::Closed],
    ];
    // Every kept total checked against its count; the ones asked for returned.
    let check = || async {
        for scope in scopes {
            for board in [None, Some(x.id), Some(y.id)] {
                for statuses in &status_sets {
                    let mut q = query(scope, FeedbackSort::Newest);
                    (q.board_id, q.statuses) = (board, statuses.clone());
                    let kept = list(store, a, &q).await.1;
                    assert_eq!(
                        kept,
                        counted_total(store, a, &q).await,
                        "kept and counted totals of {scope:?}, board {board:?}, {statuses:?}"
                    );
                }
            }
        }
        // `feedbacks.count` reads the same rows: per status, archived items apart.
        for board in [None, Some(x.id), Some(y.id)] {
            let counts = store.count_feedback(a, board).await.unwrap();
            let mut expected = sounding_domain::feedback_merge::FeedbackCounts::default();
            for status in FeedbackStatus::ALL {
                let mut q = query(team_open, FeedbackSort::Newest);
                (q.board_id, q.statuses) = (board, vec![status]);
                expected.add(status, false, counted_total(store, a, &q).await);
            }
            let mut q = query(TEAM_ALL, FeedbackSort::Newest);
            q.board_id = board;
            let all = counted_total(store, a, &q).await;
            expected.archived = all - expected.total();
            assert_eq!(counts, expected, "counts of board {board:?}");
        }
    };
    let total = |scope: FeedbackScope, board: Option<BoardId>| async move {
        let mut q = query(scope, FeedbackSort::Newest);
        q.board_id = board;
        list(store, a, &q).await.1
    };
    let make = |board: Option<&Board>, title: &str, published: bool| {
        let mut f = item(a, jane.id, title, t0());
        f.board_id = board.map(|b| b.id);
        if !published {
            f.published_at = None;
        }
        f
    };
    let mut items = Vec::new();
    for (board, title, published) in [
        (None, "n1", true),
        (None, "n2", false),
        (Some(&x), "x1", true),
        (Some(&x), "x2", true),
        (Some(&x), "x3", false),
        (Some(&y), "y1", true),
    ] {
        let f = make(board, title, published);
        store.insert_feedback(&f, &[], &[]).await.unwrap();
        items.push(f);
    }
    let elsewhere = item(b, bob.id, "b1", t0());
    store.insert_feedback(&elsewhere, &[], &[]).await.unwrap();
    check().await;
    assert_eq!(
        (
            total(FeedbackScope::Public, None).await,
            total(team_open, None).await,
            total(team_open, Some(x.id)).await,
        ),
        (3, 6, 3),
        "public: n1, x1, x2; the team's: all six of its own"
    );

    let save = |f: Feedback| async move { assert!(store.save_feedback(&f, &[]).await.unwrap()) };
    // Published, archived, a new status, moved between boards and off them, unarchived.
    items[4].published_at = Some(t0());
    save(items[4].clone()).await;
    check().await;
    assert_eq!(total(FeedbackScope::Public, None).await, 4);
    items[2].archived_at = Some(t0());
    save(items[2].clone()).await;
    check().await;
    assert_eq!(
        (total(team_open, None).await, total(TEAM_ALL, None).await),
        (5, 6)
    );
    items[3].status = FeedbackStatus::Planned;
    save(items[3].clone()).await;
    check().await;
    items[3].board_id = Some(y.id);
    save(items[3].clone()).await;
    check().await;
    assert_eq!(total(team_open, Some(y.id)).await, 2);
    items[0].board_id = Some(x.id);
    save(items[0].clone()).await;
    items[5].board_id = None;
    save(items[5].clone()).await;
    check().await;
    items[2].archived_at = None;
    save(items[2].clone()).await;
    check().await;
    // A change to anything else leaves the totals as they are.
    let before = total(TEAM_ALL, None).await;
    items[1].title = "n2, renamed".into();
    items[1].published_at = None;
    save(items[1].clone()).await;
    assert_eq!(total(TEAM_ALL, None).await, before);
    assert!(store.delete_feedback(a, items[1].id, &[]).await.unwrap());
    check().await;
    assert_eq!(total(TEAM_ALL, None).await, 5);

    // The board's own visibility decides what the public sees of it.
    x.meta.is_public = false;
    store.save_board(&x).await.unwrap();
    check().await;
    assert_eq!(total(FeedbackScope::Public, Some(x.id)).await, 0);
    x.meta.is_public = true;
    store.save_board(&x).await.unwrap();
    check().await;
    assert_eq!(
        list(store, b, &query(TEAM_ALL, FeedbackSort::Newest))
            .await
            .1,
        1,
        "another team's items are its own"
    );
}

/// A board's `feedback_count` is read from `feedback_board_counts`, which triggers keep. After
/// each kind of change to an item, every read of it (`board`, `boards`, `edit_board`) must
/// equal the items really there, counted here with `COUNT(*)`, and match what was done.
async fn a_boards_feedback_count_follows_every_change_to_its_items(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let x = board(store, a, "x", true).await;
    let y = board(store, a, "y", false).await;
    let counts = || async {
        let mut kept = Vec::new();
        for board in [&x, &y] {
            let counted = env.count(&format!(
                "SELECT COUNT(*) AS n FROM feedback \
                 WHERE board_id = '{}' AND archived_at IS NULL",
                board.id
            ));
            let read = store.board(a, board.id).await.unwrap().unwrap();
            let listed = store.boards(a, false).await.unwrap();
            let listed = listed.iter().find(|v| v.board.id == board.id).unwrap();
            // An edit that changes nothing still reads the board, locked.
            let edited = match store
                .edit_board(a, board.id, Box::new(|_| Ok(Vec::new())))
                .await
                .unwrap()
            {
                sounding_domain::edit::Edited::Unchanged(view) => view,
                other => panic!("an empty edit changes nothing: {other:?}"),
            };
            assert_eq!(
                (
                    read.feedback_count,
                    listed.feedback_count,
                    edited.feedback_count
                ),
                (counted, counted, counted),
                "kept and counted feedback of {}",
                board.slug
            );
            kept.push(counted);
        }
        (kept[0], kept[1])
    };
    assert_eq!(counts().await, (0, 0), "new boards count nothing");

    let on = |board: Option<&Board>, title: &str, published: bool| {
        let mut f = item(a, jane.id, title, t0());
        f.board_id = board.map(|b| b.id);
        if !published {
            f.published_at = None;
        }
        f
    };
    let mut items = Vec::new();
    for (board, title, published) in [
        (Some(&x), "x1", true),
        (Some(&x), "x2", true),
        (Some(&x), "draft", false),
        (Some(&y), "y1", true),
        (None, "loose", true),
    ] {
        let f = on(board, title, published);
        store.insert_feedback(&f, &[], &[]).await.unwrap();
        items.push(f);
    }
    assert_eq!(
        counts().await,
        (3, 1),
        "drafts count, items on no board do not"
    );

    let save = |f: Feedback| async move { assert!(store.save_feedback(&f, &[]).await.unwrap()) };
    items[0].archived_at = Some(t0());
    save(items[0].clone()).await;
    assert_eq!(counts().await, (2, 1), "archived");
    items[0].archived_at = None;
    save(items[0].clone()).await;
    assert_eq!(counts().await, (3, 1), "unarchived");
    items[1].board_id = Some(y.id);
    save(items[1].clone()).await;
    assert_eq!(counts().await, (2, 2), "moved");
    items[4].board_id = Some(x.id);
    save(items[4].clone()).await;
    assert_eq!(counts().await, (3, 2), "put on a board");
    items[3].board_id = None;
    save(items[3].clone()).await;
    assert_eq!(counts().await, (3, 1), "taken off its board");
    // Archived and moved at once: out of the old board, not into the new one.
    items[2].archived_at = Some(t0());
    items[2].board_id = Some(y.id);
    save(items[2].clone()).await;
    assert_eq!(counts().await, (2, 1), "archived and moved");
    items[0].title = "x1, renamed".into();
    items[0].published_at = None;
    save(items[0].clone()).await;
    assert_eq!(counts().await, (2, 1), "nothing else moves the count");

    // A merge archives its source.
    let merge = FeedbackMerge {
        team_id: a,
        source_id: items[4].id,
        target_id: items[1].id,
        editor: jane.id,
        at: t0(),
    };
    assert!(matches!(
        store
            .merge_feedback(&merge, |_, _| Vec::new())
            .await
            .unwrap(),
        MergeOutcome::Merged { .. }
    ));
    assert_eq!(counts().await, (1, 1), "merged away");
    assert!(store.delete_feedback(a, items[0].id, &[]).await.unwrap());
    assert!(store.delete_feedback(a, items[2].id, &[]).await.unwrap());
    assert_eq!(counts().await, (0, 1), "deleted (one archived)");

    // A board emptied and deleted takes its count row along.
    let kept_rows = |board: &Board| {
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM feedback_board_counts WHERE board_id = '{}'",
            board.id
        ))
    };
    assert!(store.delete_feedback(a, items[4].id, &[]).await.unwrap());
    assert!(kept_rows(&x) >= 1, "x had items: it has rows");
    assert_eq!(
        env.count(&format!(
            "SELECT COALESCE(SUM(n), 0) AS n FROM feedback_board_counts WHERE board_id = '{}'",
            x.id
        )),
        0,
        "x's rows now sum to 0"
    );
    assert!(store.delete_board(a, x.id).await.unwrap());
    assert_eq!(kept_rows(&x), 0);
}

/// On PostgreSQL a board's two kept counts are spread over slot rows, so that concurrent
/// creates on one board do not each wait for the previous commit on a single row; the sums stay
/// exact, items counted before the slots (all in slot 0) included.
#[tokio::test]
async fn postgres_spreads_a_boards_counts_over_slots() {
    let Some(env) = postgres().await else {
        return;
    };
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let x = board(store, a, "x", true).await;
    let mut items = Vec::new();
    for n in 0..40 {
        let mut f = item(a, jane.id, &format!("item {n}"), t0());
        f.board_id = Some(x.id);
        store.insert_feedback(&f, &[], &[]).await.unwrap();
        items.push(f);
    }
    let rows = |table: &str| {
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM {table} WHERE board_id = '{}'",
            x.id
        ))
    };
    assert!(
        rows("feedback_board_counts") > 1,
        "one row would serialise creates"
    );
    assert!(rows("feedback_public_counts") > 1);
    // As a database migrated from one row per board has them: the whole count in slot 0.
    let moved = env.count(&format!(
        "WITH gone AS (DELETE FROM feedback_board_counts WHERE board_id = '{0}' AND slot <> 0 \
         RETURNING 1), put AS (INSERT INTO feedback_board_counts (board_id, slot, n) \
         VALUES ('{0}', 0, 40) ON CONFLICT (board_id, slot) DO UPDATE SET n = 40 RETURNING 1) \
         SELECT COUNT(*) AS n FROM put",
        x.id
    ));
    assert_eq!(moved, 1);
    let kept = || async { store.board(a, x.id).await.unwrap().unwrap().feedback_count };
    assert_eq!(kept().await, 40);
    for f in &mut items[..5] {
        f.archived_at = Some(t0());
        assert!(store.save_feedback(f, &[]).await.unwrap());
    }
    let mut public = query(FeedbackScope::Public, FeedbackSort::Top);
    public.board_id = Some(x.id);
    let public = list(store, a, &public).await.1;
    assert_eq!(
        (kept().await, public),
        (35, 35),
        "kept counts after archiving five"
    );
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

/// An item's comment list reads its total from the item's kept `comment_count` and
/// `private_comment_count`. After each kind of change (new public and private comments, a
/// comment made private and public again, a delete, a merge moving comments), the total with
/// and without private comments must equal the comments really there, counted with `COUNT(*)`.
async fn a_comment_lists_total_follows_every_change_to_its_comments(env: Env) {
    use sounding_domain::feedback_comment::{CommentSort, Direction};
    use sounding_tests::fixtures::{comment, comment_query};

    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let (x, y) = (item(a, jane.id, "x", t0()), item(a, jane.id, "y", t0()));
    for f in [&x, &y] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
    }
    let both = [&x, &y];
    let check = |expected: [(i64, i64); 2]| {
        let env = &env;
        async move {
            for (f, (public, all)) in both.into_iter().zip(expected) {
                let mut totals = Vec::new();
                for include_private in [false, true] {
                    let q = comment_query(include_private, CommentSort::CreatedAt, Direction::Asc);
                    totals.push(store.comments(a, f.id, &q).await.unwrap().total);
                }
                let counted = |private: &str| {
                    env.count(&format!(
                        "SELECT COUNT(*) AS n FROM feedback_comments \
                         WHERE feedback_id = '{}'{private}",
                        f.id
                    ))
                };
                assert_eq!(totals, [public, all], "{}", f.title);
                assert_eq!(
                    [counted(" AND is_private = FALSE"), counted("")],
                    [public, all],
                    "{}",
                    f.title
                );
            }
        }
    };
    let mut comments = Vec::new();
    for (on, private) in [(&x, false), (&x, true), (&x, false), (&y, true)] {
        let c = comment(on, jane.id, "hi", private, t0());
        assert!(store.insert_comment(&c, &[]).await.unwrap());
        comments.push(c);
    }
    check([(2, 3), (0, 1)]).await;

    let scope = |id, private: bool| async move {
        store
            .edit_feedback_comment(
                a,
                id,
                Box::new(move |view| {
                    view.comment.is_private = private;
                    Ok(Vec::new())
                }),
            )
            .await
            .unwrap();
    };
    scope(comments[0].id, true).await;
    check([(1, 3), (0, 1)]).await;
    scope(comments[0].id, true).await; // Already private: nothing moves.
    check([(1, 3), (0, 1)]).await;
    scope(comments[1].id, false).await;
    check([(2, 3), (0, 1)]).await;
    let deleted = store
        .delete_feedback_comment(a, comments[2].id, Box::new(|_| Vec::new()))
        .await
        .unwrap();
    assert!(deleted.is_some());
    check([(1, 2), (0, 1)]).await;
    let merge = FeedbackMerge {
        team_id: a,
        source_id: x.id,
        target_id: y.id,
        editor: jane.id,
        at: t0(),
    };
    assert!(matches!(
        store
            .merge_feedback(&merge, |_, _| Vec::new())
            .await
            .unwrap(),
        MergeOutcome::Merged { .. }
    ));
    check([(0, 0), (1, 3)]).await;
}
