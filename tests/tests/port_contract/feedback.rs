//! Feedback items: round trips, taken url ids, updates, deletes, and the list's filters and sorts.
//! The same on every adapter.

use sounding_tests::overwrite::Overwrite;
use std::sync::Arc;

use serde_json::json;
use sounding_domain::{
    board::Board,
    event::EventKind,
    feedback::{
        Feedback, FeedbackReach, FeedbackScope, FeedbackSort, FeedbackStatus, FeedbackView,
        Priority,
    },
    feedback_comment::{CommentSort, Direction},
    feedback_vote::{VoteAccess, VoteOutcome, VoteState},
    ids::FeedbackId,
    page::PageRequest,
    ports::{Conflict, Store},
    subscriber::SubscriberRef,
};
use uuid::Uuid;

use crate::fixtures::{
    at, board, board_ref, cast, comment, comment_query, conflict, empty_page, event, everything,
    feedback, list_query, listed, read, stored, stored_board, stored_feedback, stored_team,
    subscriber, t0, url_ids, vote, vote_counted,
};

pub async fn feedback_round_trips_with_board_creator_and_counts(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let editor = subscriber(&*store, team, "editor@example.com").await;

    let created = at("2026-03-05T10:00:00.123Z");
    let mut item = feedback(team, Some(ideas.id), creator.id, "k3j9x0a2mq", created);
    item.title = "Dark mode ✨ for the ÉCLAIR app".into();
    item.text = "Please add \"dark\" mode.\nSoon — üñíçødé.".into();
    item.status = FeedbackStatus::Planned;
    item.priority = Priority::Urgent;
    item.kind = Some("idea".into());
    item.meta = json!({
        "source": "widget",
        "score": 1.5,
        "ints": [i64::MAX, i64::MIN],
        "nested": {"list": [1, {"deep": true}], "none": null},
    })
    .as_object()
    .unwrap()
    .clone();
    item.published_at = Some(created.plus_seconds(60));
    item.updated_at = at("2026-03-06T00:00:00.999Z");
    item.last_modified_by_id = Some(editor.id);
    store.insert_feedback(&item, &[], &[]).await.unwrap();

    let expected = FeedbackView {
        feedback: item.clone(),
        board: Some(board_ref(&ideas)),
        creator: Some(SubscriberRef::from(&creator)),
        last_modified_by: Some(SubscriberRef::from(&editor)),
        vote_count: 0,
        comment_count: 0,
        tags: Vec::new(),
    };
    assert_eq!(
        store.feedback(team, item.id).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        store.feedback_by_url_id(team, "k3j9x0a2mq").await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(store.feedback(other, item.id).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(other, "k3j9x0a2mq").await.unwrap(),
        None,
        "another team sees nothing"
    );
    assert_eq!(store.feedback(team, FeedbackId::new()).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(team, "k3j9x0a2mz").await.unwrap(),
        None
    );

    // No board, no editor, awaiting moderation and archived: the empty sides read back empty.
    let mut bare = feedback(team, None, creator.id, "bare000001", created);
    bare.published_at = None;
    bare.archived_at = Some(created.plus_seconds(5));
    store.insert_feedback(&bare, &[], &[]).await.unwrap();
    assert_eq!(
        read(&*store, &bare).await,
        FeedbackView {
            feedback: bare.clone(),
            board: None,
            creator: Some(SubscriberRef::from(&creator)),
            last_modified_by: None,
            vote_count: 0,
            comment_count: 0,
            tags: Vec::new(),
        }
    );

    // The counts follow the votes and comments, private comments included.
    for (voter, n) in [(&creator, 1), (&editor, 2)] {
        cast(
            &*store,
            team,
            &vote(&item, voter.id, created.plus_seconds(n)),
            &[],
        )
        .await;
    }
    for (private, n) in [(false, 1), (true, 2)] {
        let c = comment(&item, editor.id, "+1", private, created.plus_seconds(n));
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    let counted = read(&*store, &item).await;
    assert_eq!((counted.vote_count, counted.comment_count), (2, 2));
    assert_eq!(
        counted,
        FeedbackView {
            vote_count: 2,
            comment_count: 2,
            ..expected.clone()
        }
    );
    let untouched = read(&*store, &bare).await;
    assert_eq!((untouched.vote_count, untouched.comment_count), (0, 0));

    // The board shown with the item is the board as it is now.
    let mut renamed = ideas.clone();
    renamed.name = "Ideas & wishes".into();
    renamed.slug = "wishes".into();
    renamed.meta.is_public = false;
    store.save_board(&renamed).await.unwrap();
    let now_private = read(&*store, &item).await;
    assert_eq!(now_private.board, Some(board_ref(&renamed)));
    assert!(!now_private.board.as_ref().unwrap().is_public);

    // Who may read an item, without the item: the view's answer, for each side of it.
    for (team_asking, id, reach) in [
        (
            team,
            item.id,
            Some(FeedbackReach {
                published: true,
                board_is_public: Some(false),
            }),
        ),
        (
            team,
            bare.id,
            Some(FeedbackReach {
                published: false,
                board_is_public: None,
            }),
        ),
        (other, item.id, None),
        (team, FeedbackId::new(), None),
    ] {
        assert_eq!(store.feedback_reach(team_asking, id).await.unwrap(), reach);
    }
    assert_eq!(
        now_private.reach(),
        FeedbackReach {
            published: true,
            board_is_public: Some(false),
        }
    );

    // Lists show the same views as single reads.
    let page = store
        .list_feedback(
            team,
            &list_query(
                FeedbackScope::Team {
                    include_archived: true,
                },
                FeedbackSort::Newest,
            ),
        )
        .await
        .unwrap();
    assert_eq!(page.total, 2);
    assert!(page.items.contains(&now_private));
    assert!(page.items.contains(&untouched));

    // A vote that leaves the check to the store lands only on an item anyone may read: not on
    // one of a private board, nor on one awaiting moderation, and nothing is written.
    let outsider = subscriber(&*store, team, "outsider@example.com").await;
    let events_before = store.events(team).await.unwrap();
    let cast_event = event(team, EventKind::NewFeedbackVote, created, 7);
    for hidden in [&item, &bare] {
        let refused = vote(hidden, outsider.id, created.plus_seconds(9));
        assert!(matches!(
            store
                .cast_vote(
                    team,
                    &refused,
                    VoteAccess::Public,
                    std::slice::from_ref(&cast_event)
                )
                .await
                .unwrap(),
            VoteOutcome::NotPublic(_)
        ));
    }
    let after = read(&*store, &item).await;
    assert_eq!(
        (after.vote_count, read(&*store, &bare).await.vote_count),
        (2, 0)
    );
    let open = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "open000001", created),
    )
    .await;
    assert_eq!(store.events(team).await.unwrap(), events_before);
    // A vote that lands writes its events, in order; a second one of the voter writes none.
    let welcome = vote(&open, outsider.id, created.plus_seconds(9));
    let follow_up = event(team, EventKind::NewFeedbackVote, created, 8);
    let cast_events = [cast_event, follow_up];
    assert_eq!(
        store
            .cast_vote(team, &welcome, VoteAccess::Public, &cast_events)
            .await
            .unwrap(),
        vote_counted(&welcome, 1)
    );
    let again = vote(&open, outsider.id, created.plus_seconds(10));
    assert_eq!(
        store
            .cast_vote(team, &again, VoteAccess::Public, &cast_events[..1])
            .await
            .unwrap(),
        VoteOutcome::AlreadyVoted
    );
    let mut expected = events_before;
    expected.extend(cast_events.iter().map(stored));
    assert_eq!(store.events(team).await.unwrap(), expected);
}

pub async fn a_taken_url_id_is_a_conflict_and_writes_nothing(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let second = subscriber(&*store, team, "second@example.com").await;

    let first = feedback(team, None, creator.id, "taken00001", t0());
    let e1 = event(team, EventKind::FeedbacksCreate, t0(), 1);
    store
        .insert_feedback(&first, &[], std::slice::from_ref(&e1))
        .await
        .unwrap();

    let mut copy = feedback(team, None, second.id, "taken00001", t0().plus_seconds(1));
    let e2 = event(team, EventKind::FeedbacksCreate, t0().plus_seconds(1), 2);
    let e2b = event(team, EventKind::NewFeedback, t0().plus_seconds(1), 5);
    assert_eq!(
        store.insert_feedback(&copy, &[], &[e2, e2b]).await,
        Err(conflict(Conflict::FeedbackUrlId))
    );
    assert_eq!(store.feedback(team, copy.id).await.unwrap(), None);
    assert_eq!(
        store
            .feedback_by_url_id(team, "taken00001")
            .await
            .unwrap()
            .map(|v| v.feedback),
        Some(first.clone()),
        "the first item keeps its url id"
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1)],
        "the refused item's events were not kept"
    );
    let all = list_query(
        FeedbackScope::Team {
            include_archived: true,
        },
        FeedbackSort::Newest,
    );
    assert_eq!(listed(&*store, team, &all).await, (url_ids(&[&first]), 1));

    // Another team may use the url id.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let elsewhere = feedback(other, None, outsider.id, "taken00001", t0());
    store.insert_feedback(&elsewhere, &[], &[]).await.unwrap();
    assert_eq!(
        store
            .feedback_by_url_id(other, "taken00001")
            .await
            .unwrap()
            .map(|v| v.feedback),
        Some(elsewhere)
    );

    // The store still works after the failed write, and the refused item left nothing behind.
    // Its events are kept in the order given.
    copy.url_id = "fresh00001".into();
    let e3 = event(team, EventKind::NewFeedback, t0().plus_seconds(2), 3);
    let e4 = event(team, EventKind::FeedbacksCreate, t0().plus_seconds(2), 4);
    store
        .insert_feedback(&copy, &[], &[e3.clone(), e4.clone()])
        .await
        .unwrap();
    assert_eq!(read(&*store, &copy).await.feedback, copy);
    assert_eq!(
        store.followers(team, copy.id).await.unwrap(),
        vec![second.id]
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e3), stored(&e4)]
    );
}

pub async fn updates_replace_fields_and_append_events_only_when_found(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    let bugs = stored_board(&*store, team, "bugs", 2).await;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let editor = subscriber(&*store, team, "editor@example.com").await;

    let item = feedback(team, Some(ideas.id), creator.id, "upd0000001", t0());
    let e_create = event(team, EventKind::FeedbacksCreate, t0(), 1);
    store
        .insert_feedback(&item, &[], std::slice::from_ref(&e_create))
        .await
        .unwrap();
    store
        .cast_vote(
            team,
            &vote(&item, editor.id, t0().plus_seconds(1)),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    let remark = comment(&item, editor.id, "why?", false, t0().plus_seconds(2));
    assert!(store.insert_comment(&remark, &[]).await.unwrap());

    // Every field changes, the counts stay.
    let mut changed = item.clone();
    changed.board_id = Some(bugs.id);
    changed.url_id = "upd0000002".into();
    changed.title = "Crash on ÉCLAIR export".into();
    changed.text = "Steps:\n1. export\n2. 💥".into();
    changed.status = FeedbackStatus::Completed;
    changed.priority = Priority::Low;
    changed.kind = Some("bug".into());
    changed.meta = json!({"os": "linux", "versions": [1, 2.5]})
        .as_object()
        .unwrap()
        .clone();
    changed.published_at = None;
    changed.archived_at = Some(at("2026-03-07T08:09:10.011Z"));
    changed.updated_at = at("2026-03-07T08:09:10.012Z");
    changed.last_modified_by_id = Some(editor.id);
    let e_update = event(team, EventKind::FeedbacksUpdate, changed.updated_at, 2);
    assert!(store
        .save_feedback(&changed, std::slice::from_ref(&e_update))
        .await
        .unwrap());
    assert_eq!(
        read(&*store, &item).await,
        FeedbackView {
            feedback: changed.clone(),
            board: Some(board_ref(&bugs)),
            creator: Some(SubscriberRef::from(&creator)),
            last_modified_by: Some(SubscriberRef::from(&editor)),
            vote_count: 1,
            comment_count: 1,
            tags: Vec::new(),
        }
    );
    assert!(store
        .feedback_by_url_id(team, "upd0000002")
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        store.feedback_by_url_id(team, "upd0000001").await.unwrap(),
        None,
        "the old url id is free"
    );

    // Optional fields are cleared as well as set.
    let mut cleared = changed.clone();
    cleared.board_id = None;
    cleared.kind = None;
    cleared.meta = Default::default();
    cleared.published_at = Some(at("2026-03-08T00:00:00.001Z"));
    cleared.archived_at = None;
    cleared.last_modified_by_id = None;
    assert!(store.save_feedback(&cleared, &[]).await.unwrap());
    let view = read(&*store, &item).await;
    assert_eq!(view.feedback, cleared);
    assert_eq!((view.board, view.last_modified_by), (None, None));
    assert_eq!((view.vote_count, view.comment_count), (1, 1));

    // A missing item, or another team's, is not updated and its events are not kept.
    let ghost = feedback(team, None, creator.id, "ghost00001", t0());
    let e_ghost = event(team, EventKind::FeedbacksUpdate, t0(), 3);
    assert!(!store.save_feedback(&ghost, &[e_ghost]).await.unwrap());
    assert_eq!(store.feedback(team, ghost.id).await.unwrap(), None);
    let mut hijack = cleared.clone();
    hijack.team_id = other;
    hijack.title = "Hijacked".into();
    let e_hijack = event(other, EventKind::FeedbacksUpdate, t0(), 4);
    assert!(!store.save_feedback(&hijack, &[e_hijack]).await.unwrap());
    assert_eq!(read(&*store, &item).await.feedback, cleared);
    assert_eq!(store.feedback(other, item.id).await.unwrap(), None);

    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e_create), stored(&e_update)]
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn delete_removes_comments_votes_and_follows(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let commenter = subscriber(&*store, team, "commenter@example.com").await;
    let follower = subscriber(&*store, team, "follower@example.com").await;

    let item = feedback(team, None, creator.id, "gone000001", t0());
    let keep = feedback(team, None, creator.id, "keep000001", t0().plus_seconds(1));
    for f in [&item, &keep] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
        for (s, n) in [(&voter, 10), (&commenter, 11)] {
            store
                .cast_vote(
                    team,
                    &vote(f, s.id, t0().plus_seconds(n)),
                    VoteAccess::Checked,
                    &[],
                )
                .await
                .unwrap();
        }
        let c = comment(f, commenter.id, "me too", false, t0().plus_seconds(20));
        assert!(store.insert_comment(&c, &[]).await.unwrap());
        assert!(store
            .set_following(team, f.id, follower.id, true, t0().plus_seconds(3600))
            .await
            .unwrap());
    }
    let private = comment(&item, voter.id, "internal", true, t0().plus_seconds(30));
    assert!(store.insert_comment(&private, &[]).await.unwrap());

    let e_foreign = event(other, EventKind::FeedbacksDelete, t0(), 1);
    assert!(
        !store
            .delete_feedback(other, item.id, &[e_foreign])
            .await
            .unwrap(),
        "another team cannot delete it"
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);

    let e_delete = event(team, EventKind::FeedbacksDelete, t0().plus_seconds(60), 2);
    assert!(store
        .delete_feedback(team, item.id, std::slice::from_ref(&e_delete))
        .await
        .unwrap());
    assert_eq!(store.feedback(team, item.id).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(team, "gone000001").await.unwrap(),
        None
    );
    assert_eq!(
        store
            .vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        None
    );
    let all_comments = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    assert_eq!(
        store.comments(team, item.id, &all_comments).await.unwrap(),
        empty_page(everything())
    );
    assert_eq!(store.followers(team, item.id).await.unwrap(), vec![]);
    assert!(!store
        .is_following(team, item.id, follower.id)
        .await
        .unwrap());
    assert_eq!(
        store.retract_vote(team, item.id, voter.id).await.unwrap(),
        None
    );
    assert_eq!(
        cast(&*store, team, &vote(&item, follower.id, t0()), &[]).await,
        VoteOutcome::NotFound
    );
    let late = comment(&item, follower.id, "late", false, t0().plus_seconds(90));
    assert!(!store.insert_comment(&late, &[]).await.unwrap());
    assert!(!store
        .set_following(team, item.id, follower.id, true, t0().plus_seconds(3600))
        .await
        .unwrap());
    let e_again = event(team, EventKind::FeedbacksDelete, t0().plus_seconds(61), 3);
    assert!(
        !store
            .delete_feedback(team, item.id, &[e_again])
            .await
            .unwrap(),
        "deleting twice finds nothing the second time"
    );
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e_delete)]);
    assert_eq!(store.events(other).await.unwrap(), vec![]);

    // The other item keeps all of its own.
    let kept = read(&*store, &keep).await;
    assert_eq!((kept.vote_count, kept.comment_count), (2, 1));
    assert_eq!(
        store.vote_state(team, keep.id, None).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: None
        })
    );
    assert_eq!(
        store
            .comments(team, keep.id, &all_comments)
            .await
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        store.followers(team, keep.id).await.unwrap(),
        vec![creator.id, commenter.id, follower.id]
    );
    assert!(store
        .is_following(team, keep.id, follower.id)
        .await
        .unwrap());

    // Nothing of the deleted item survived: stored again, it starts empty.
    store.insert_feedback(&item, &[], &[]).await.unwrap();
    let fresh = read(&*store, &item).await;
    assert_eq!((fresh.vote_count, fresh.comment_count), (0, 0));
    assert_eq!(
        store
            .vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        Some(VoteState {
            count: 0,
            vote: None
        })
    );
    assert_eq!(
        store.comments(team, item.id, &all_comments).await.unwrap(),
        empty_page(everything())
    );
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id]
    );
    assert!(store.is_following(team, item.id, creator.id).await.unwrap());
    assert!(!store.is_following(team, item.id, voter.id).await.unwrap());
    let other_team = sounding_domain::ids::TeamId::new();
    assert!(
        !store
            .is_following(other_team, item.id, creator.id)
            .await
            .unwrap(),
        "another team's item is not followed"
    );
    let again = vote(&item, voter.id, t0().plus_seconds(120));
    assert_eq!(
        cast(&*store, team, &again, &[]).await,
        vote_counted(&again, 1)
    );
}

pub async fn lists_filter_by_scope_status_board_and_search(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let lonely = stored_team(&*store, "lonely").await.team.id;
    let open = stored_board(&*store, team, "open", 1).await;
    let mut closed = board(team, "closed", 2, t0());
    closed.meta.is_public = false;
    store.insert_board(&closed).await.unwrap();
    let creator = subscriber(&*store, team, "creator@example.com").await;

    let mut n = 0;
    let mut item = |board: Option<&Board>, url_id: &str, title: &str, text: &str| {
        n += 1;
        let mut f = feedback(
            team,
            board.map(|b| b.id),
            creator.id,
            url_id,
            t0().plus_seconds(n * 60),
        );
        f.title = title.into();
        f.text = text.into();
        f
    };
    let a = item(None, "aaaaaaaaaa", "Dark mode", "at night");
    let mut b = item(Some(&open), "bbbbbbbbbb", "ÉCLAIR export", "to PDF");
    b.status = FeedbackStatus::Planned;
    let mut c = item(Some(&closed), "cccccccccc", "Private roadmap", "");
    c.status = FeedbackStatus::Planned;
    let mut d = item(Some(&open), "dddddddddd", "Awaiting moderation", "");
    d.published_at = None;
    let mut e = item(Some(&open), "eeeeeeeeee", "Old and archived", "");
    e.status = FeedbackStatus::Completed;
    e.archived_at = Some(t0().plus_seconds(3600));
    let mut f = item(
        None,
        "ffffffffff",
        "100% faster_sync",
        "Make sync 100% FASTER",
    );
    f.status = FeedbackStatus::Closed;
    // Would match `100%` and `faster_sync` if `%` and `_` were wildcards.
    let mut g = item(
        Some(&open),
        "gggggggggg",
        "Plain",
        "100 percent fasterXsync",
    );
    g.status = FeedbackStatus::InProgress;
    for x in [&a, &b, &c, &d, &e, &f, &g] {
        store.insert_feedback(x, &[], &[]).await.unwrap();
    }
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let mut h = feedback(other, None, outsider.id, "hhhhhhhhhh", t0());
    h.title = "Dark mode".into();
    store.insert_feedback(&h, &[], &[]).await.unwrap();

    let public = FeedbackScope::Public;
    let team_scope = FeedbackScope::Team {
        include_archived: false,
    };
    let everything_scope = FeedbackScope::Team {
        include_archived: true,
    };
    let q = |scope: FeedbackScope| list_query(scope, FeedbackSort::Newest);
    let expect = |items: &[&Feedback]| (url_ids(items), items.len() as i64);

    assert_eq!(
        listed(&*store, team, &q(public)).await,
        expect(&[&g, &f, &b, &a]),
        "public: published, not archived, on a public board or none"
    );
    assert_eq!(
        listed(&*store, team, &q(team_scope)).await,
        expect(&[&g, &f, &d, &c, &b, &a])
    );
    assert_eq!(
        listed(&*store, team, &q(everything_scope)).await,
        expect(&[&g, &f, &e, &d, &c, &b, &a])
    );
    assert_eq!(
        listed(&*store, lonely, &q(everything_scope)).await,
        (vec![], 0)
    );
    assert_eq!(listed(&*store, other, &q(public)).await, expect(&[&h]));

    let mut planned = q(everything_scope);
    planned.statuses = vec![FeedbackStatus::Planned];
    assert_eq!(listed(&*store, team, &planned).await, expect(&[&c, &b]));
    let mut two = q(public);
    two.statuses = vec![FeedbackStatus::Closed, FeedbackStatus::Planned];
    assert_eq!(listed(&*store, team, &two).await, expect(&[&f, &b]));

    let mut on_open = q(everything_scope);
    on_open.board_id = Some(open.id);
    assert_eq!(
        listed(&*store, team, &on_open).await,
        expect(&[&g, &e, &d, &b])
    );
    let mut on_closed = q(public);
    on_closed.board_id = Some(closed.id);
    assert_eq!(listed(&*store, team, &on_closed).await, (vec![], 0));
    let mut on_closed_team = q(team_scope);
    on_closed_team.board_id = Some(closed.id);
    assert_eq!(listed(&*store, team, &on_closed_team).await, expect(&[&c]));

    let search = |scope: FeedbackScope, term: &str| {
        let mut query = q(scope);
        query.search = Some(term.into());
        query
    };
    assert_eq!(
        listed(&*store, team, &search(team_scope, "éclair")).await,
        expect(&[&b]),
        "non-ASCII titles fold to lowercase"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "dark")).await,
        expect(&[&a]),
        "another team's items are never searched"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "to pdf")).await,
        expect(&[&b]),
        "the text is searched too"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "100% faster")).await,
        expect(&[&f]),
        "`%` matches itself only"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "faster_sync")).await,
        expect(&[&f]),
        "`_` matches itself only"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "%")).await,
        expect(&[&f])
    );
    assert_eq!(
        listed(&*store, team, &search(public, "_")).await,
        expect(&[&f])
    );
    assert_eq!(
        listed(&*store, team, &search(public, "\\")).await,
        (vec![], 0),
        "a backslash is no escape of the term's"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "roadmap")).await,
        (vec![], 0),
        "search stays within the scope"
    );
    assert_eq!(
        listed(&*store, team, &search(everything_scope, "archived")).await,
        expect(&[&e])
    );

    let mut combined = search(public, "plain");
    combined.board_id = Some(open.id);
    combined.statuses = vec![FeedbackStatus::InProgress];
    assert_eq!(listed(&*store, team, &combined).await, expect(&[&g]));
    combined.statuses = vec![FeedbackStatus::InReview];
    assert_eq!(listed(&*store, team, &combined).await, (vec![], 0));

    // Pages are cut from the whole selection; the total counts all of it.
    let mut window = q(everything_scope);
    window.page = PageRequest {
        limit: 3,
        offset: 2,
    };
    assert_eq!(
        listed(&*store, team, &window).await,
        (url_ids(&[&e, &d, &c]), 7)
    );
    window.page = PageRequest {
        limit: 5,
        offset: 100,
    };
    assert_eq!(listed(&*store, team, &window).await, (vec![], 7));
    let mut first = search(public, "a");
    first.page = PageRequest {
        limit: 1,
        offset: 0,
    };
    assert_eq!(
        listed(&*store, team, &first).await,
        (url_ids(&[&g]), 4),
        "the total counts every match, not the page"
    );
}

pub async fn lists_sort_newest_top_and_trending(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let mut voters = Vec::new();
    for i in 0..5 {
        voters.push(subscriber(&*store, team, &format!("voter{i}@example.com")).await);
    }
    let since = at("2026-03-10T00:00:00.000Z");
    let before = at("2026-03-09T23:59:59.999Z");
    let after = at("2026-03-11T12:00:00.500Z");

    let make = |url_id: &str, created: &str| feedback(team, None, creator.id, url_id, at(created));
    let old_popular = make("oldpopular", "2026-03-01T00:00:00.000Z");
    let recent_one = make("recentone1", "2026-03-02T00:00:00.000Z");
    // Older than recent_one: it leads trending only if its private comment counts.
    let commented = make("commented1", "2026-03-01T12:00:00.000Z");
    let mut tie_low = make("tielow0001", "2026-03-04T00:00:00.000Z");
    tie_low.id = FeedbackId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let mut tie_high = make("tiehigh001", "2026-03-04T00:00:00.000Z");
    tie_high.id = FeedbackId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let quiet_new = make("quietnew01", "2026-03-05T00:00:00.000Z");
    let boundary = make("boundary01", "2026-02-25T00:00:00.000Z");
    let quiet_old = make("quietold01", "2026-02-20T00:00:00.000Z");
    for f in [
        &quiet_old,
        &tie_high,
        &old_popular,
        &boundary,
        &quiet_new,
        &commented,
        &tie_low,
        &recent_one,
    ] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
    }
    // old_popular: five votes, all before the window.
    for (i, voter) in voters.iter().enumerate() {
        let v = vote(
            &old_popular,
            voter.id,
            before.plus_seconds(-(i as i64) * 3600),
        );
        cast(&*store, team, &v, &[]).await;
    }
    // recent_one: one vote in the window.
    cast(&*store, team, &vote(&recent_one, voters[0].id, after), &[]).await;
    // boundary: one vote exactly at the window's start, which counts.
    cast(&*store, team, &vote(&boundary, voters[1].id, since), &[]).await;
    // commented: an old vote, and two comments in the window (one private; both count).
    cast(&*store, team, &vote(&commented, voters[2].id, before), &[]).await;
    for private in [false, true] {
        let c = comment(&commented, voters[3].id, "agreed", private, after);
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    // Activity in another team does not count here.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let foreign = stored_feedback(
        &*store,
        feedback(other, None, outsider.id, "foreign001", t0()),
    )
    .await;
    cast(&*store, other, &vote(&foreign, outsider.id, after), &[]).await;

    let scope = FeedbackScope::Team {
        include_archived: false,
    };
    let sorted = |sort: FeedbackSort| {
        let mut query = list_query(scope, sort);
        query.trending_since = since;
        query
    };
    let expect = |items: &[&Feedback]| (url_ids(items), items.len() as i64);

    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Newest)).await,
        expect(&[
            &quiet_new,
            &tie_high,
            &tie_low,
            &recent_one,
            &commented,
            &old_popular,
            &boundary,
            &quiet_old,
        ]),
        "newest: creation time, then id, descending"
    );
    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Top)).await,
        expect(&[
            &old_popular,
            &recent_one,
            &commented,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &quiet_old,
        ]),
        "top: votes, then newest"
    );
    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Trending)).await,
        expect(&[
            &commented,
            &recent_one,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &old_popular,
            &quiet_old,
        ]),
        "trending: votes and comments in the window, then newest"
    );
    let mut all_time = sorted(FeedbackSort::Trending);
    all_time.trending_since = at("2000-01-01T00:00:00.000Z");
    assert_eq!(
        listed(&*store, team, &all_time).await,
        expect(&[
            &old_popular,
            &commented,
            &recent_one,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &quiet_old,
        ]),
        "a window covering everything counts every vote and comment"
    );
    let mut nothing_recent = sorted(FeedbackSort::Trending);
    nothing_recent.trending_since = at("2027-01-01T00:00:00.000Z");
    assert_eq!(
        listed(&*store, team, &nothing_recent).await,
        listed(&*store, team, &sorted(FeedbackSort::Newest)).await,
        "without recent activity trending falls back to newest"
    );

    let mut page = sorted(FeedbackSort::Trending);
    page.page = PageRequest {
        limit: 3,
        offset: 1,
    };
    assert_eq!(
        listed(&*store, team, &page).await,
        (url_ids(&[&recent_one, &boundary, &quiet_new]), 8)
    );
    let mut top_page = sorted(FeedbackSort::Top);
    top_page.page = PageRequest {
        limit: 3,
        offset: 0,
    };
    let top = store.list_feedback(team, &top_page).await.unwrap();
    assert_eq!(
        top.items
            .iter()
            .map(|v| (v.feedback.url_id.as_str(), v.vote_count, v.comment_count))
            .collect::<Vec<_>>(),
        vec![
            ("oldpopular", 5, 0),
            ("recentone1", 1, 0),
            ("commented1", 1, 2)
        ]
    );
}
