//! Tags, retagging, merges and per-status counts: `TagStore` and `FeedbackCurationStore`.

use sounding_tests::overwrite::{Overwrite, Retagged};
use std::sync::Arc;

use serde_json::json;
use sounding_domain::{
    event::{EventKind, NewEvent},
    feedback::{FeedbackScope, FeedbackSort, FeedbackStatus, FeedbackView},
    feedback_comment::{CommentSort, Direction},
    feedback_merge::{FeedbackCounts, FeedbackMerge, MergeOutcome, MERGED_INTO_KEY},
    feedback_vote::VoteAccess,
    ids::{TagId, TeamId},
    ports::{Conflict, Store},
    tag::{NewTag, Tag, TagRef},
};

use crate::{
    fixtures::{cast, conflict, stored},
    fixtures::{
        comment, comment_query, event, feedback, list_query, stored_board, stored_feedback,
        stored_team, subscriber, t0, vote,
    },
};

fn new_tag(team: TeamId, name: &str, n: i64) -> Tag {
    Tag::new(
        team,
        NewTag::new(Some(name), Some("#aabbcc")).unwrap(),
        t0().plus_seconds(n),
    )
}

async fn stored_tag(store: &dyn Store, team: TeamId, name: &str, n: i64) -> Tag {
    let tag = new_tag(team, name, n);
    store.insert_tag(&tag).await.expect("insert tag");
    tag
}

fn names(tags: &[Tag]) -> Vec<&str> {
    tags.iter().map(|t| t.name.as_str()).collect()
}

fn refs(tags: &[&Tag]) -> Vec<TagRef> {
    tags.iter().map(|t| t.as_ref()).collect()
}

pub async fn tag_names_are_unique_per_team_ignoring_case(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let bug = stored_tag(&*store, team, "Bug", 1).await;
    let idea = stored_tag(&*store, team, "idea", 2).await;
    let alpha = stored_tag(&*store, team, "Ärger", 3).await;
    assert_eq!(
        store.insert_tag(&new_tag(team, "bUG", 4)).await,
        Err(conflict(Conflict::TagName))
    );
    assert_eq!(
        store.insert_tag(&new_tag(team, "äRGER", 4)).await,
        Err(conflict(Conflict::TagName)),
        "case folds beyond ASCII"
    );
    let theirs = stored_tag(&*store, other, "bug", 5).await;

    let listed = store.tags(team).await.unwrap();
    assert_eq!(names(&listed), ["Bug", "idea", "Ärger"]);
    assert_eq!(listed[0], bug, "every field round-trips");
    assert_eq!(store.tag(team, idea.id).await.unwrap(), Some(idea.clone()));
    assert_eq!(store.tag(team, theirs.id).await.unwrap(), None);

    let mut renamed = idea.clone();
    renamed.name = "BUG".into();
    assert_eq!(
        store.save_tag(&renamed).await,
        Err(conflict(Conflict::TagName))
    );
    assert_eq!(store.tag(team, idea.id).await.unwrap(), Some(idea.clone()));
    let mut own_case = bug.clone();
    own_case.name = "BUG".into();
    own_case.color = "#000000".into();
    own_case.updated_at = t0().plus_seconds(9);
    assert!(store.save_tag(&own_case).await.unwrap());
    assert_eq!(store.tag(team, bug.id).await.unwrap(), Some(own_case));
    let mut foreign = theirs.clone();
    foreign.team_id = team;
    assert!(!store.save_tag(&foreign).await.unwrap(), "not the team's");

    assert!(!store.delete_tag(other, alpha.id).await.unwrap());
    assert!(store.delete_tag(team, alpha.id).await.unwrap());
    assert!(!store.delete_tag(team, alpha.id).await.unwrap());
    assert_eq!(names(&store.tags(team).await.unwrap()), ["BUG", "idea"]);
    assert_eq!(names(&store.tags(other).await.unwrap()), ["bug"]);
}

pub async fn retagging_replaces_tags_with_the_fields_and_events(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let zeta = stored_tag(&*store, team, "zeta", 1).await;
    let alpha = stored_tag(&*store, team, "Alpha", 2).await;
    let theirs = stored_tag(&*store, other, "theirs", 3).await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "item000001", t0()),
    )
    .await;
    let plain = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "item000002", t0().plus_seconds(1)),
    )
    .await;

    let mut changed = item.clone();
    changed.title = "Retitled".into();
    let e1 = event(team, EventKind::FeedbacksUpdate, t0(), 1);
    assert_eq!(
        store
            .save_feedback_tagged(
                &changed,
                &[zeta.id, alpha.id, zeta.id],
                std::slice::from_ref(&e1)
            )
            .await
            .unwrap(),
        Retagged::Saved
    );
    let view = store.feedback(team, item.id).await.unwrap().unwrap();
    assert_eq!(view.feedback.title, "Retitled");
    assert_eq!(
        view.tags,
        refs(&[&alpha, &zeta]),
        "sorted by name, once each"
    );
    assert_eq!(
        store.feedback(team, plain.id).await.unwrap().unwrap().tags,
        vec![]
    );

    // An unknown or foreign tag writes nothing.
    let mut again = changed.clone();
    again.title = "Not saved".into();
    for tags in [vec![alpha.id, theirs.id], vec![TagId::new()]] {
        let e = event(team, EventKind::FeedbacksUpdate, t0(), 2);
        assert_eq!(
            store
                .save_feedback_tagged(&again, &tags, &[e])
                .await
                .unwrap(),
            Retagged::UnknownTag
        );
    }
    let view = store.feedback(team, item.id).await.unwrap().unwrap();
    assert_eq!(
        (view.feedback.title.as_str(), view.tags.len()),
        ("Retitled", 2)
    );
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e1)]);
    let mut gone = plain.clone();
    gone.id = sounding_domain::ids::FeedbackId::new();
    assert_eq!(
        store.save_feedback_tagged(&gone, &[], &[]).await.unwrap(),
        Retagged::FeedbackGone
    );

    // The list filter and its views carry the tags.
    let mut query = list_query(
        FeedbackScope::Team {
            include_archived: false,
        },
        FeedbackSort::Newest,
    );
    query.tag_id = Some(zeta.id);
    let page = store.list_feedback(team, &query).await.unwrap();
    assert_eq!(page.total, 1);
    assert_eq!(page.items[0].tags, refs(&[&alpha, &zeta]));

    // Deleting a tag takes it off the item; an empty set clears the rest.
    assert!(store.delete_tag(team, zeta.id).await.unwrap());
    assert_eq!(
        store.feedback(team, item.id).await.unwrap().unwrap().tags,
        refs(&[&alpha])
    );
    assert_eq!(store.list_feedback(team, &query).await.unwrap().total, 0);
    assert_eq!(
        store
            .save_feedback_tagged(&changed, &[], &[])
            .await
            .unwrap(),
        Retagged::Saved
    );
    assert_eq!(
        store.feedback(team, item.id).await.unwrap().unwrap().tags,
        vec![]
    );
    // Deleting a tagged item leaves the tag.
    let e = event(team, EventKind::FeedbacksUpdate, t0(), 3);
    store
        .save_feedback_tagged(&changed, &[alpha.id], &[e])
        .await
        .unwrap();
    assert!(store.delete_feedback(team, item.id, &[]).await.unwrap());
    assert_eq!(names(&store.tags(team).await.unwrap()), ["Alpha"]);
}

/// Events built from the merged items: their ids and counts, so the test can read them back.
fn merge_events(target: &FeedbackView, source: &FeedbackView) -> Vec<NewEvent> {
    [target, source]
        .into_iter()
        .map(|v| {
            NewEvent::new(
                v.feedback.team_id,
                EventKind::FeedbacksUpdate,
                v.feedback.updated_at,
                &[("feedbackId", v.feedback.id.to_string())],
                json!({"votes": v.vote_count, "comments": v.comment_count}),
            )
        })
        .collect()
}

pub async fn merging_moves_votes_once_comments_and_follows_and_recounts(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let both = subscriber(&*store, team, "both@example.com").await;
    let source_only = subscriber(&*store, team, "source@example.com").await;
    let follower = subscriber(&*store, team, "follower@example.com").await;
    let mut source = feedback(team, None, creator.id, "source0001", t0());
    source.meta = json!({"keep": true}).as_object().unwrap().clone();
    let source = stored_feedback(&*store, source).await;
    let target = stored_feedback(
        &*store,
        feedback(team, None, both.id, "target0001", t0().plus_seconds(1)),
    )
    .await;
    for (item, voter, n) in [
        (&source, &both, 1),
        (&source, &source_only, 2),
        (&target, &both, 3),
    ] {
        store
            .cast_vote(
                team,
                &vote(item, voter.id, t0().plus_seconds(n)),
                VoteAccess::Checked,
                &[],
            )
            .await
            .unwrap();
    }
    for (item, private, n) in [(&source, false, 4), (&source, true, 5), (&target, false, 6)] {
        let c = comment(item, source_only.id, "text", private, t0().plus_seconds(n));
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    store
        .set_following(team, source.id, follower.id, true, t0().plus_seconds(7))
        .await
        .unwrap();
    store
        .set_following(team, target.id, source_only.id, true, t0().plus_seconds(8))
        .await
        .unwrap();

    let now = t0().plus_seconds(100);
    let merge = FeedbackMerge {
        team_id: team,
        source_id: source.id,
        target_id: target.id,
        editor: follower.id,
        at: now,
    };
    let (mut expected_source, mut expected_target) = (source.clone(), target.clone());
    merge.apply(&mut expected_source, &mut expected_target);
    let MergeOutcome::Merged {
        target: merged_target,
        source: merged_source,
    } = store.merge_feedback(&merge, merge_events).await.unwrap()
    else {
        panic!("merged");
    };
    assert_eq!(merged_target.feedback, expected_target);
    assert_eq!(merged_source.feedback, expected_source);
    assert_eq!(
        (merged_target.vote_count, merged_target.comment_count),
        (2, 3)
    );
    assert_eq!(
        (merged_source.vote_count, merged_source.comment_count),
        (0, 0)
    );
    assert_eq!(
        merged_source.feedback.meta,
        *json!({"keep": true, MERGED_INTO_KEY: target.id.to_string()})
            .as_object()
            .unwrap()
    );
    assert_eq!(merged_source.feedback.archived_at, Some(now));
    // What the store reads back equals what it returned, and the rows agree with the counts.
    assert_eq!(
        store.feedback(team, target.id).await.unwrap().as_ref(),
        Some(&*merged_target)
    );
    assert_eq!(
        store.feedback(team, source.id).await.unwrap().as_ref(),
        Some(&*merged_source)
    );
    for voter in [&both, &source_only] {
        let state = store
            .vote_state(team, target.id, Some(voter.id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((state.count, state.vote.is_some()), (2, true));
        assert_eq!(state.vote.unwrap().feedback_id, target.id);
        let state = store
            .vote_state(team, source.id, Some(voter.id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((state.count, state.vote), (0, None));
    }
    assert_eq!(
        store.retract_vote(team, target.id, both.id).await.unwrap(),
        Some(1)
    );
    let all = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    let moved = store.comments(team, target.id, &all).await.unwrap();
    assert_eq!(moved.total, 3);
    assert!(moved
        .items
        .iter()
        .all(|c| c.comment.feedback_id == target.id));
    assert_eq!(
        store.comments(team, source.id, &all).await.unwrap().total,
        0
    );
    let followers = store.followers(team, target.id).await.unwrap();
    for s in [&creator, &both, &source_only, &follower] {
        assert_eq!(
            followers.iter().filter(|f| **f == s.id).count(),
            1,
            "{} follows once",
            s.email.as_ref().unwrap().as_str()
        );
    }
    assert_eq!(followers.len(), 4);
    assert_eq!(store.followers(team, source.id).await.unwrap(), vec![]);
    // The events were built from the merged items and appended with the merge.
    let events = store.events(team).await.unwrap();
    let payloads: Vec<_> = events
        .iter()
        .map(|e| (e.payload["feedbackId"].clone(), e.payload["data"].clone()))
        .collect();
    assert_eq!(
        payloads,
        [
            (
                json!(target.id.to_string()),
                json!({"votes": 2, "comments": 3})
            ),
            (
                json!(source.id.to_string()),
                json!({"votes": 0, "comments": 0})
            ),
        ]
    );
}

pub async fn merge_refuses_missing_or_archived_items_and_writes_nothing(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let source = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "source0001", t0()),
    )
    .await;
    let target = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "target0001", t0()),
    )
    .await;
    let mut archived = feedback(team, None, creator.id, "archiv0001", t0());
    archived.archived_at = Some(t0());
    let archived = stored_feedback(&*store, archived).await;
    cast(&*store, team, &vote(&source, creator.id, t0()), &[]).await;
    let theirs_creator = subscriber(&*store, other, "x@example.com").await;
    let theirs = stored_feedback(
        &*store,
        feedback(other, None, theirs_creator.id, "their00001", t0()),
    )
    .await;
    let mut gone = target.clone();
    gone.id = sounding_domain::ids::FeedbackId::new();
    let mut foreign = theirs.clone();
    foreign.team_id = team;

    let now = t0().plus_seconds(10);
    for (s, t, expected) in [
        (&source, &gone, MergeOutcome::Missing),
        (&gone, &target, MergeOutcome::Missing),
        (&source, &foreign, MergeOutcome::Missing),
        (&source, &archived, MergeOutcome::Archived),
        (&archived, &target, MergeOutcome::Archived),
    ] {
        let merge = FeedbackMerge {
            team_id: team,
            source_id: s.id,
            target_id: t.id,
            editor: s.creator_id,
            at: now,
        };
        assert_eq!(
            store.merge_feedback(&merge, merge_events).await.unwrap(),
            expected
        );
    }
    let unchanged = store.feedback(team, source.id).await.unwrap().unwrap();
    assert_eq!((unchanged.feedback, unchanged.vote_count), (source, 1));
    assert_eq!(store.events(team).await.unwrap(), vec![]);
}

pub async fn counts_are_per_status_with_archived_apart(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    assert_eq!(
        store.count_feedback(team, None).await.unwrap(),
        FeedbackCounts::default()
    );
    let rows = [
        (FeedbackStatus::InReview, false, None),
        (FeedbackStatus::InReview, false, Some(ideas.id)),
        (FeedbackStatus::Planned, true, Some(ideas.id)),
        (FeedbackStatus::Closed, false, None),
        (FeedbackStatus::Completed, true, None),
        (FeedbackStatus::InProgress, false, Some(ideas.id)),
    ];
    for (n, (status, archived, board_id)) in rows.into_iter().enumerate() {
        let mut f = feedback(team, board_id, creator.id, &format!("count{n:05}"), t0());
        f.status = status;
        f.archived_at = archived.then_some(t0());
        stored_feedback(&*store, f).await;
    }
    let other_creator = subscriber(&*store, other, "o@example.com").await;
    stored_feedback(
        &*store,
        feedback(other, None, other_creator.id, "other00001", t0()),
    )
    .await;

    let all = store.count_feedback(team, None).await.unwrap();
    assert_eq!(
        all,
        FeedbackCounts {
            in_review: 2,
            in_progress: 1,
            planned: 0,
            completed: 0,
            closed: 1,
            archived: 2,
        }
    );
    assert_eq!(all.total(), 6);
    let on_board = store.count_feedback(team, Some(ideas.id)).await.unwrap();
    assert_eq!(
        on_board,
        FeedbackCounts {
            in_review: 1,
            in_progress: 1,
            archived: 1,
            ..FeedbackCounts::default()
        }
    );
}
