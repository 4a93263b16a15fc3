//! The outbox and settings: events kept per team in append order, appended with the writes that
//! cause them, and settings that keep their first value. The same on every adapter.

use sounding_tests::overwrite::Overwrite;
use std::{collections::BTreeSet, sync::Arc};

use serde_json::json;
use sounding_domain::{
    event::{EventKind, NewEvent},
    feedback::FeedbackStatus,
    feedback_vote::VoteOutcome,
    ids::TeamId,
    ports::Store,
    timestamp::Timestamp,
};
use uuid::Uuid;

use crate::fixtures::{
    at, cast, comment, event, feedback, stored, stored_team, subscriber, t0, vote,
};

pub async fn the_outbox_keeps_each_team_s_events_in_append_order(store: Arc<dyn Store>) {
    let a = stored_team(&*store, "team-a").await.team.id;
    let b = stored_team(&*store, "team-b").await.team.id;
    let event = |team: TeamId, kind: EventKind, at: Timestamp, n: i64| {
        NewEvent::new(
            team,
            kind,
            at,
            &[("feedbackId", Uuid::from_u128(n as u128).to_string())],
            json!({"n": n, "title": "Dark mode ✨", "tags": ["ui", {"x": 1.5}], "none": null}),
        )
    };
    let e1 = event(a, EventKind::NewFeedback, at("2026-08-01T00:00:00.001Z"), 1);
    let e2 = event(
        b,
        EventKind::FeedbacksCreate,
        at("2026-08-01T00:00:00.002Z"),
        2,
    );
    let e3 = event(
        a,
        EventKind::FeedbackStatusChange,
        at("2026-08-01T00:00:00.003Z"),
        3,
    );
    // Made in one order, appended in the other: the append order is what counts.
    let e4 = event(
        a,
        EventKind::TopicsCreate,
        at("2026-08-01T00:00:00.004Z"),
        4,
    );
    let e5 = event(
        a,
        EventKind::TopicVotesCreate,
        at("2026-08-01T00:00:00.005Z"),
        5,
    );

    store
        .append_events(&[e1.clone(), e2.clone()])
        .await
        .unwrap();
    store.append_events(&[]).await.unwrap();
    store
        .append_events(std::slice::from_ref(&e3))
        .await
        .unwrap();
    store
        .append_events(&[e5.clone(), e4.clone()])
        .await
        .unwrap();

    assert_eq!(
        store.events(a).await.unwrap(),
        vec![stored(&e1), stored(&e3), stored(&e5), stored(&e4)]
    );
    assert_eq!(store.events(b).await.unwrap(), vec![stored(&e2)]);
    assert_eq!(store.events(TeamId::new()).await.unwrap(), vec![]);
}

pub async fn events_are_appended_with_the_writes(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let at_n = |n: i64| t0().plus_seconds(n);

    let item = feedback(team, None, creator.id, "evts000001", at_n(0));
    let e1 = event(team, EventKind::NewFeedback, at_n(0), 1);
    let e2 = event(team, EventKind::FeedbacksCreate, at_n(0), 2);
    store
        .insert_feedback(&item, &[], &[e1.clone(), e2.clone()])
        .await
        .unwrap();

    let mut changed = item.clone();
    changed.status = FeedbackStatus::Planned;
    changed.updated_at = at_n(1);
    let e3 = event(team, EventKind::FeedbackStatusChange, at_n(1), 3);
    let e4 = event(team, EventKind::FeedbacksUpdate, at_n(1), 4);
    assert!(store
        .save_feedback(&changed, &[e3.clone(), e4.clone()])
        .await
        .unwrap());

    let v = vote(&item, voter.id, at_n(2));
    let e5 = event(team, EventKind::NewFeedbackVote, at_n(2), 5);
    cast(&*store, team, &v, std::slice::from_ref(&e5)).await;

    let c = comment(&item, voter.id, "nice", false, at_n(3));
    let e6 = event(team, EventKind::FeedbackCommentsCreate, at_n(3), 6);
    assert!(store
        .insert_comment(&c, std::slice::from_ref(&e6))
        .await
        .unwrap());

    // Writes that do nothing append nothing.
    let refused = |n: i64| vec![event(team, EventKind::FeedbacksUpdate, at_n(n), n)];
    assert_eq!(
        cast(
            &*store,
            team,
            &vote(&item, voter.id, at_n(4)),
            &refused(100)
        )
        .await,
        VoteOutcome::AlreadyVoted
    );
    let clash = feedback(team, None, creator.id, "evts000001", at_n(5));
    assert!(store
        .insert_feedback(&clash, &[], &refused(101))
        .await
        .is_err());
    let ghost = feedback(team, None, creator.id, "ghost00001", at_n(6));
    assert!(!store.save_feedback(&ghost, &refused(102)).await.unwrap());
    assert!(!store
        .delete_feedback(team, ghost.id, &refused(103))
        .await
        .unwrap());
    assert_eq!(
        cast(
            &*store,
            team,
            &vote(&ghost, voter.id, at_n(7)),
            &refused(104)
        )
        .await,
        VoteOutcome::NotFound
    );
    assert!(!store
        .insert_comment(
            &comment(&ghost, voter.id, "nope", false, at_n(8)),
            &refused(105)
        )
        .await
        .unwrap());

    let e7 = event(team, EventKind::FeedbacksDelete, at_n(9), 7);
    assert!(store
        .delete_feedback(team, item.id, std::slice::from_ref(&e7))
        .await
        .unwrap());

    assert_eq!(
        store.events(team).await.unwrap(),
        [&e1, &e2, &e3, &e4, &e5, &e6, &e7].map(stored).to_vec(),
        "each write's events, in the order they were written"
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn settings_keep_the_first_value_even_under_concurrency(store: Arc<dyn Store>) {
    store.ping().await.unwrap();
    assert_eq!(
        store
            .get_or_init_setting("jwt_secret", "first")
            .await
            .unwrap(),
        "first"
    );
    assert_eq!(
        store
            .get_or_init_setting("jwt_secret", "second")
            .await
            .unwrap(),
        "first"
    );
    assert_eq!(
        store.get_or_init_setting("other", "x").await.unwrap(),
        "x",
        "settings are independent"
    );

    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .get_or_init_setting("race", &format!("candidate-{i}"))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut values = BTreeSet::new();
    for task in tasks {
        values.insert(task.await.unwrap());
    }
    assert_eq!(
        values.len(),
        1,
        "every caller gets the same value: {values:?}"
    );
    let value = values.into_iter().next().unwrap();
    assert!(value.starts_with("candidate-"));
    assert_eq!(
        store.get_or_init_setting("race", "late").await.unwrap(),
        value
    );
}
