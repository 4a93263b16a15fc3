//! Boards: order and filters, slugs unique per team, deletion within the team, and the feedback
//! count that refuses a deletion. The same on every adapter.

use sounding_tests::overwrite::Overwrite;
use std::sync::Arc;

use sounding_domain::{
    board::BoardView,
    ids::{BoardId, TeamId},
    ports::{Conflict, Store},
};
use uuid::Uuid;

use crate::fixtures::{
    at, board, board_ref, conflict, feedback, read, stored_board, stored_team, subscriber, t0, view,
};

/// The feedback count of a board, if `team` has it.
async fn feedback_count(store: &dyn Store, team: TeamId, board: BoardId) -> Option<i64> {
    let view = store.board(team, board).await.unwrap();
    view.map(|v| v.feedback_count)
}

pub async fn boards_are_ordered_and_filtered(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    assert_eq!(store.boards(team, false).await.unwrap(), vec![]);
    assert_eq!(store.next_board_order(team).await.unwrap(), 1);

    let t1 = at("2026-06-01T00:00:00.500Z");
    let second = board(team, "second", 2, t0());
    // Same order and creation time: the id decides, whatever the insertion order.
    let mut tie_high = board(team, "tie-high", 1, t1);
    tie_high.id = BoardId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let mut tie_low = board(team, "tie-low", 1, t1);
    tie_low.id = BoardId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let earliest = board(team, "earliest", 1, t0());
    let mut hidden = board(team, "hidden", 3, t0());
    hidden.meta.is_public = false;
    hidden.meta.allow_public_submissions = false;
    hidden.meta.require_moderation = true;
    hidden.meta.color = Some("#3B82F6".into());
    for b in [&second, &tie_high, &tie_low, &earliest, &hidden] {
        store.insert_board(b).await.unwrap();
    }

    assert_eq!(
        store.boards(team, false).await.unwrap(),
        [&earliest, &tie_low, &tie_high, &second, &hidden]
            .map(view)
            .to_vec()
    );
    assert_eq!(
        store.boards(team, true).await.unwrap(),
        [&earliest, &tie_low, &tie_high, &second].map(view).to_vec(),
        "only public boards when asked"
    );
    assert_eq!(store.next_board_order(team).await.unwrap(), 4);
    assert_eq!(
        store.board(team, hidden.id).await.unwrap(),
        Some(view(&hidden))
    );
    assert_eq!(store.board(other, hidden.id).await.unwrap(), None);
    assert_eq!(store.board(team, BoardId::new()).await.unwrap(), None);
    assert_eq!(store.boards(other, false).await.unwrap(), vec![]);
    assert_eq!(store.next_board_order(other).await.unwrap(), 1);
}

pub async fn board_slugs_are_unique_per_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    assert!(store.board_slug_taken(team, "ideas").await.unwrap());
    assert!(!store.board_slug_taken(team, "bugs").await.unwrap());
    assert!(!store.board_slug_taken(other, "ideas").await.unwrap());

    let duplicate = board(team, "ideas", 2, t0());
    assert_eq!(
        store.insert_board(&duplicate).await,
        Err(conflict(Conflict::BoardSlug))
    );
    assert_eq!(store.board(team, duplicate.id).await.unwrap(), None);
    store
        .insert_board(&board(other, "ideas", 1, t0()))
        .await
        .expect("another team may use the slug");

    // Updating a board without changing its slug is not a conflict with itself.
    let mut renamed = ideas.clone();
    renamed.name = "Ideas & wishes".into();
    renamed.order = 7;
    renamed.meta.color = Some("#00FF00".into());
    renamed.updated_at = at("2026-07-01T12:00:00.999Z");
    store.save_board(&renamed).await.unwrap();
    assert_eq!(
        store.board(team, ideas.id).await.unwrap(),
        Some(view(&renamed))
    );

    let bugs = stored_board(&*store, team, "bugs", 2).await;
    let mut clash = bugs.clone();
    clash.slug = "ideas".into();
    clash.name = "Clash".into();
    assert_eq!(
        store.save_board(&clash).await,
        Err(conflict(Conflict::BoardSlug))
    );
    assert_eq!(
        store.board(team, bugs.id).await.unwrap(),
        Some(view(&bugs)),
        "a refused update changes nothing"
    );

    let mut moved = bugs.clone();
    moved.slug = "issues".into();
    store.save_board(&moved).await.unwrap();
    assert!(!store.board_slug_taken(team, "bugs").await.unwrap());
    assert!(store.board_slug_taken(team, "issues").await.unwrap());
}

pub async fn boards_are_deleted_only_by_their_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let first = stored_board(&*store, team, "first", 1).await;
    let last = stored_board(&*store, team, "last", 5).await;

    assert!(!store.delete_board(other, last.id).await.unwrap());
    assert_eq!(store.board(team, last.id).await.unwrap(), Some(view(&last)));

    assert!(store.delete_board(team, last.id).await.unwrap());
    assert!(!store.delete_board(team, last.id).await.unwrap());
    assert_eq!(store.board(team, last.id).await.unwrap(), None);
    assert_eq!(store.boards(team, false).await.unwrap(), vec![view(&first)]);
    assert_eq!(store.next_board_order(team).await.unwrap(), 2);
    assert!(!store.board_slug_taken(team, "last").await.unwrap());
}

pub async fn board_feedback_count_and_delete_refusal(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    let empty = stored_board(&*store, team, "empty", 2).await;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let count = |views: Vec<BoardView>| -> Vec<(String, i64)> {
        views
            .into_iter()
            .map(|v| (v.board.slug, v.feedback_count))
            .collect()
    };
    let counts = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
        pairs.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
    };
    assert_eq!(
        count(store.boards(team, false).await.unwrap()),
        counts(&[("ideas", 0), ("empty", 0)])
    );

    let published = feedback(team, Some(ideas.id), creator.id, "onboard001", t0());
    let mut pending = feedback(team, Some(ideas.id), creator.id, "onboard002", t0());
    pending.published_at = None;
    let mut archived = feedback(team, Some(ideas.id), creator.id, "onboard003", t0());
    archived.archived_at = Some(t0().plus_seconds(1));
    let boardless = feedback(team, None, creator.id, "noboard001", t0());
    for f in [&published, &pending, &archived, &boardless] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
    }

    assert_eq!(
        count(store.boards(team, false).await.unwrap()),
        counts(&[("ideas", 2), ("empty", 0)]),
        "archived items are not counted, unpublished ones are"
    );
    assert_eq!(
        count(store.boards(team, true).await.unwrap()),
        counts(&[("ideas", 2), ("empty", 0)])
    );
    assert_eq!(
        store.board(team, ideas.id).await.unwrap(),
        Some(BoardView {
            board: ideas.clone(),
            feedback_count: 2
        })
    );

    assert_eq!(
        store.delete_board(team, ideas.id).await,
        Err(conflict(Conflict::BoardNotEmpty))
    );
    assert_eq!(
        feedback_count(&*store, team, ideas.id).await,
        Some(2),
        "the refused delete removed nothing"
    );
    assert_eq!(
        read(&*store, &published).await.board,
        Some(board_ref(&ideas))
    );
    assert!(
        !store.delete_board(other, ideas.id).await.unwrap(),
        "another team finds no board to delete"
    );
    assert!(store.delete_board(team, empty.id).await.unwrap());

    // Only archived feedback left: not counted, but still holding the board.
    for f in [&published, &pending] {
        assert!(store.delete_feedback(team, f.id, &[]).await.unwrap());
    }
    assert_eq!(feedback_count(&*store, team, ideas.id).await, Some(0));
    assert_eq!(
        store.delete_board(team, ideas.id).await,
        Err(conflict(Conflict::BoardNotEmpty))
    );

    // Moved off the board, the board may go.
    let mut moved = archived.clone();
    moved.board_id = None;
    assert!(store.save_feedback(&moved, &[]).await.unwrap());
    assert!(store.delete_board(team, ideas.id).await.unwrap());
    assert_eq!(store.board(team, ideas.id).await.unwrap(), None);
    assert_eq!(store.boards(team, false).await.unwrap(), vec![]);
    assert_eq!(read(&*store, &archived).await.feedback, moved);
}
