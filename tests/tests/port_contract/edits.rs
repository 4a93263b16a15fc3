//! The `edit_*` contract (`sounding_domain::edit`): a change to a stored row is decided on the
//! row as read inside the store's write transaction. Many concurrent edits of different fields
//! of one row all stay; concurrent identical changes write one event (and one notification per
//! follower); an edit that changes nothing, refuses, or finds no row writes nothing.

use std::{future::Future, sync::Arc};

use serde_json::json;
use sounding_domain::{
    edit::{Edit, Edited},
    event::{EventKind, NewEvent},
    feedback::FeedbackStatus,
    meta::Meta,
    notification::{NotificationKind, NotificationQuery, NotifyFollowers, NotifyTarget},
    ports::Store,
    stage::StageMeta,
    tag::{NewTag, Tag},
    DomainError, TeamId,
};

use crate::fixtures::{
    event, everything, feedback, stage, stored_board, stored_feedback, stored_roadmap,
    stored_stage, stored_team, stored_topic, subscriber, t0, topic,
};

/// How many concurrent edits each check runs at once.
const WRITERS: usize = 12;

/// Runs `n` edits at once and waits for all of them.
async fn race<F, Fut>(n: usize, edit: F)
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(edit(i))).collect();
    for task in tasks {
        task.await.expect("edit task");
    }
}

/// A meta object of one key.
fn key(i: usize) -> Meta {
    json!({ format!("k{i}"): i }).as_object().unwrap().clone()
}

fn expect_changed<T: std::fmt::Debug>(edited: Edited<T>) {
    assert!(edited.changed(), "a real change is written: {edited:?}");
}

pub async fn concurrent_feedback_edits_keep_every_change(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let mut item = feedback(team, None, creator.id, "edits00001", t0());
    item.published_at = None;
    let item = stored_feedback(&*store, item).await;
    let (id, at) = (item.id, t0().plus_seconds(60));

    // Each writer changes something else: a meta key, or one of title, text, status,
    // publication, archive.
    race(WRITERS + 5, |i| {
        let store = store.clone();
        async move {
            let edit: Edit<_> =
                Box::new(move |view: &mut sounding_domain::feedback::FeedbackView| {
                    let f = &mut view.feedback;
                    match i {
                        0 => f.title = "New title".into(),
                        1 => f.text = "New text".into(),
                        2 => f.status = FeedbackStatus::Planned,
                        3 => f.published_at = Some(at),
                        4 => f.archived_at = Some(at),
                        _ => sounding_domain::meta::merge(&mut f.meta, &key(i)),
                    }
                    Ok(Vec::new())
                });
            expect_changed(store.edit_feedback(team, id, edit).await.unwrap());
        }
    })
    .await;

    let stored = store.feedback(team, id).await.unwrap().unwrap().feedback;
    assert_eq!(
        (stored.title.as_str(), stored.text.as_str(), stored.status),
        ("New title", "New text", FeedbackStatus::Planned)
    );
    assert_eq!(
        (stored.published_at, stored.archived_at),
        (Some(at), Some(at))
    );
    for i in 5..WRITERS + 5 {
        assert_eq!(stored.meta[&format!("k{i}")], i, "meta key k{i} kept");
    }
}

pub async fn concurrent_identical_changes_write_one_event_and_notify_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "edits00002", t0()),
    )
    .await;
    let id = item.id;

    race(8, |i| {
        let store = store.clone();
        async move {
            let edit: Edit<_> =
                Box::new(move |view: &mut sounding_domain::feedback::FeedbackView| {
                    view.feedback.status = FeedbackStatus::Completed;
                    let notice = NotifyFollowers {
                        target: NotifyTarget::Feedback(view.feedback.id),
                        actor: None,
                        kind: NotificationKind::StatusChange,
                        comment_id: None,
                        title: view.feedback.title.clone(),
                        status: Some("completed".into()),
                        previous_status: Some("in_review".into()),
                    };
                    Ok(vec![event(
                        view.feedback.team_id,
                        EventKind::FeedbackStatusChange,
                        t0().plus_seconds(i as i64),
                        i as i64,
                    )
                    .notifying(notice)])
                });
            store.edit_feedback(team, id, edit).await.unwrap();
        }
    })
    .await;

    let events = store.events(team).await.unwrap();
    assert_eq!(events.len(), 1, "one real change, one event: {events:?}");
    let notes = store
        .notifications(
            team,
            creator.id,
            &NotificationQuery {
                unread_only: false,
                page: everything(),
            },
        )
        .await
        .unwrap();
    assert_eq!(notes.page.total, 1, "the follower is told once");
}

pub async fn an_edit_that_changes_nothing_refuses_or_finds_nothing_writes_nothing(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "edits00003", t0()),
    )
    .await;
    let before = store.feedback(team, item.id).await.unwrap().unwrap();
    let announce =
        move || -> Vec<NewEvent> { vec![event(team, EventKind::FeedbacksUpdate, t0(), 1)] };

    let same = store
        .edit_feedback(team, item.id, Box::new(move |_| Ok(announce())))
        .await
        .unwrap();
    assert_eq!(same, Edited::Unchanged(before.clone()));

    let refused = store
        .edit_feedback(
            team,
            item.id,
            Box::new(|view| {
                view.feedback.title = "Never".into();
                Err(DomainError::invalid("no"))
            }),
        )
        .await
        .unwrap();
    assert_eq!(refused, Edited::Refused(DomainError::invalid("no")));

    // Another team's id is not found, as a missing one.
    let foreign = store
        .edit_feedback(
            other,
            item.id,
            Box::new(|view| {
                view.feedback.title = "Never".into();
                Ok(Vec::new())
            }),
        )
        .await
        .unwrap();
    assert_eq!(foreign, Edited::Gone);

    // A tag that is not the team's refuses the edit, and its other changes are not written.
    let alien = Tag::new(
        other,
        NewTag::new(Some("Alien"), None).unwrap(),
        t0().plus_seconds(1),
    );
    store.insert_tag(&alien).await.unwrap();
    let tagged = store
        .edit_feedback(
            team,
            item.id,
            Box::new(move |view| {
                view.feedback.title = "Never".into();
                view.tags = vec![alien.as_ref()];
                Ok(announce())
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        tagged,
        Edited::Refused(DomainError::NotFound(sounding_domain::Entity::Tag))
    );

    assert_eq!(
        store.feedback(team, item.id).await.unwrap().unwrap(),
        before
    );
    assert!(store.events(team).await.unwrap().is_empty());
}

pub async fn concurrent_board_edits_keep_every_change(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let ideas = stored_board(&*store, team, "ideas", 1).await;
    let id = ideas.id;
    race(6, |i| {
        let store = store.clone();
        async move {
            let edit: Edit<sounding_domain::board::BoardView> = Box::new(move |view| {
                let b = &mut view.board;
                match i {
                    0 => b.name = "Renamed".into(),
                    1 => b.description = "Described".into(),
                    2 => b.meta.is_public = !b.meta.is_public,
                    3 => b.meta.allow_public_submissions = !b.meta.allow_public_submissions,
                    4 => b.meta.require_moderation = !b.meta.require_moderation,
                    _ => b.meta.color = Some("#123456".into()),
                }
                Ok(Vec::new())
            });
            expect_changed(store.edit_board(team, id, edit).await.unwrap());
        }
    })
    .await;
    let stored = store.board(team, id).await.unwrap().unwrap().board;
    assert_eq!(
        (stored.name.as_str(), stored.description.as_str()),
        ("Renamed", "Described")
    );
    assert_eq!(
        (
            stored.meta.is_public,
            stored.meta.allow_public_submissions,
            stored.meta.require_moderation,
            stored.meta.color.as_deref()
        ),
        (
            !ideas.meta.is_public,
            !ideas.meta.allow_public_submissions,
            !ideas.meta.require_moderation,
            Some("#123456")
        )
    );
}

pub async fn concurrent_team_roadmap_stage_and_tag_edits_keep_every_change(store: Arc<dyn Store>) {
    let fixture = stored_team(&*store, "acme").await;
    let team = fixture.team.id;
    let roadmap = stored_roadmap(&*store, team, "Plans").await;
    let first = stored_stage(&*store, &roadmap, "First").await;
    let now = stored_stage(&*store, &roadmap, "Now").await;
    let tag = Tag::new(team, NewTag::new(Some("Bug"), None).unwrap(), t0());
    store.insert_tag(&tag).await.unwrap();
    let original = fixture.team.clone();

    race(3, |i| {
        let store = store.clone();
        async move {
            let edited = store
                .edit_team(
                    team,
                    Box::new(move |t| {
                        match i {
                            0 => t.name = "Renamed".into(),
                            1 => t.allow_anonymous_feedback = !t.allow_anonymous_feedback,
                            _ => t.public_board_moderation = !t.public_board_moderation,
                        }
                        Ok(Vec::new())
                    }),
                )
                .await
                .unwrap();
            expect_changed(edited);
        }
    })
    .await;
    let stored = store.team(team).await.unwrap().unwrap();
    assert_eq!(
        (
            stored.name.as_str(),
            stored.allow_anonymous_feedback,
            stored.public_board_moderation
        ),
        (
            "Renamed",
            !original.allow_anonymous_feedback,
            !original.public_board_moderation
        )
    );

    let roadmap_id = roadmap.id;
    race(2, |i| {
        let store = store.clone();
        async move {
            let edited = store
                .edit_roadmap(
                    team,
                    roadmap_id,
                    Box::new(move |r| {
                        if i == 0 {
                            r.name = "Renamed".into();
                        } else {
                            r.description = "Described".into();
                        }
                        Ok(Vec::new())
                    }),
                )
                .await
                .unwrap();
            expect_changed(edited);
        }
    })
    .await;
    let stored = store.roadmap(team, roadmap_id).await.unwrap().unwrap();
    assert_eq!(
        (stored.name.as_str(), stored.description.as_str()),
        ("Renamed", "Described")
    );

    // A stage's name, its meta flags and a move, at once.
    let stage_id = now.id;
    race(4, |i| {
        let store = store.clone();
        async move {
            let position = (i == 3).then_some(1);
            let edited = store
                .edit_stage(
                    team,
                    stage_id,
                    position,
                    Box::new(move |s| {
                        match i {
                            0 => s.name = "Now!".into(),
                            1 => s.meta.is_private = true,
                            2 => s.meta.color = Some("#abcdef".into()),
                            _ => {}
                        }
                        Ok(Vec::new())
                    }),
                )
                .await
                .unwrap();
            // The move is a change only while the stage is not first already; the others
            // always change something.
            if i != 3 {
                expect_changed(edited);
            }
        }
    })
    .await;
    let stored = store.stage(team, stage_id).await.unwrap().unwrap().stage;
    assert_eq!(
        (stored.name.as_str(), stored.order, &stored.meta),
        (
            "Now!",
            1,
            &StageMeta {
                is_private: true,
                disable_moderation: now.meta.disable_moderation,
                color: Some("#abcdef".into()),
            }
        )
    );
    assert_eq!(
        store
            .stage(team, first.id)
            .await
            .unwrap()
            .unwrap()
            .stage
            .order,
        2
    );

    let tag_id = tag.id;
    race(2, |i| {
        let store = store.clone();
        async move {
            let edited = store
                .edit_tag(
                    team,
                    tag_id,
                    Box::new(move |t| {
                        if i == 0 {
                            t.name = "Defect".into();
                        } else {
                            t.color = "#00ff00".into();
                        }
                        Ok(Vec::new())
                    }),
                )
                .await
                .unwrap();
            expect_changed(edited);
        }
    })
    .await;
    let stored = store.tag(team, tag_id).await.unwrap().unwrap();
    assert_eq!(
        (stored.name.as_str(), stored.color.as_str()),
        ("Defect", "#00ff00")
    );
}

pub async fn concurrent_topic_edits_keep_every_change(store: Arc<dyn Store>) {
    let team: TeamId = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let roadmap = stored_roadmap(&*store, team, "Plans").await;
    let later = stored_stage(&*store, &roadmap, "Later").await;
    let soon = stage(&roadmap, "Soon", t0());
    store.insert_stage(&soon, None).await.unwrap();
    let item = stored_topic(&*store, topic(&later, creator.id, "topic00001", t0())).await;
    let (id, at) = (item.id, t0().plus_seconds(9));
    let (soon_id, soon_name) = (soon.id, soon.name.clone());

    race(WRITERS + 4, |i| {
        let store = store.clone();
        let soon_name = soon_name.clone();
        async move {
            let edit: Edit<sounding_domain::topic::TopicView> = Box::new(move |view| {
                let t = &mut view.topic;
                match i {
                    0 => t.title = "New title".into(),
                    1 => t.text = "New text".into(),
                    2 => t.description = "New description".into(),
                    3 => {
                        t.stage_id = soon_id;
                        view.stage.id = soon_id;
                        view.stage.name = soon_name;
                    }
                    _ => sounding_domain::meta::merge(&mut t.meta, &key(i)),
                }
                t.updated_at = at;
                Ok(Vec::new())
            });
            store.edit_topic(team, id, edit).await.unwrap();
        }
    })
    .await;
    let stored = store.topic(team, id).await.unwrap().unwrap();
    let t = &stored.topic;
    assert_eq!(
        (t.title.as_str(), t.text.as_str(), t.description.as_str()),
        ("New title", "New text", "New description")
    );
    assert_eq!((t.stage_id, stored.stage.id), (soon_id, soon_id));
    for i in 4..WRITERS + 4 {
        assert_eq!(t.meta[&format!("k{i}")], i, "meta key k{i} kept");
    }
}
