//! Topics: round trips with their stage and anonymous creators, url-id Conflict, updates that
//! keep counts and visits, deletes that take everything along, lists, visits, votes, threaded
//! comments, follows, and the events the writes append.

use sounding_tests::overwrite::Overwrite;
use std::{collections::BTreeSet, sync::Arc};

use serde_json::json;
use sounding_domain::{
    event::EventKind,
    feedback_comment::{CommentSort, Direction},
    ids::{SubscriberId, TeamId, TopicCommentId, TopicId},
    page::{PageRequest, Paged},
    ports::{Conflict, Store},
    stage::Stage,
    subscriber::{Subscriber, SubscriberRef},
    topic::{StageRef, Topic, TopicQuery, TopicSort, TopicView, VISIT_WINDOW_SECONDS},
    topic_comment::{
        CommentThread, ThreadQuery, ThreadScope, TopicComment, TopicCommentView, TopicRef,
    },
    topic_vote::{TopicVoteOutcome, TopicVoteState},
};
use uuid::Uuid;

use crate::{
    fixtures::{
        anonymous, at, event, everything, stage, stored_roadmap, stored_stage, stored_team,
        stored_topic, subscriber, t0, thread_query, topic, topic_comment, topic_query, topic_vote,
    },
    fixtures::{conflict, empty_page, stored, topic_visit},
};

fn stage_ref(stage: &Stage) -> StageRef {
    StageRef {
        id: stage.id,
        name: stage.name.clone(),
        order: stage.order,
        is_private: stage.meta.is_private,
    }
}

fn topic_ref(topic: &Topic) -> TopicRef {
    TopicRef {
        id: topic.id,
        title: topic.title.clone(),
        url_id: topic.url_id.clone(),
    }
}

/// The stored view of a topic that must exist.
async fn read(store: &dyn Store, topic: &Topic) -> TopicView {
    store
        .topic(topic.team_id, topic.id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("topic {} is stored", topic.url_id))
}

/// The url ids of a list's page, in order, and its total.
async fn listed(store: &dyn Store, team: TeamId, query: &TopicQuery) -> (Vec<String>, i64) {
    let page = store.list_topics(team, query).await.unwrap();
    assert_eq!(page.page, query.page, "the page answers the request");
    let ids = page.items.iter().map(|v| v.topic.url_id.clone()).collect();
    (ids, page.total)
}

fn url_ids(topics: &[&Topic]) -> Vec<String> {
    topics.iter().map(|t| t.url_id.clone()).collect()
}

/// A vote-state answer.
fn state(count: i64, voted: bool) -> Option<TopicVoteState> {
    Some(TopicVoteState { count, voted })
}

/// A comment as listed: with its author and topic.
fn comment_view(c: &TopicComment, author: Option<&Subscriber>, topic: &Topic) -> TopicCommentView {
    TopicCommentView {
        comment: c.clone(),
        author: author.map(SubscriberRef::from),
        topic: topic_ref(topic),
    }
}

/// The roots' ids of a thread page, each with its replies' ids.
fn shape(page: &Paged<CommentThread>) -> Vec<(TopicCommentId, Vec<TopicCommentId>)> {
    page.items
        .iter()
        .map(|t| {
            (
                t.root.comment.id,
                t.replies.iter().map(|r| r.comment.id).collect(),
            )
        })
        .collect()
}

pub async fn topics_round_trip_with_stage_creator_and_counts(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;

    let created = at("2026-03-05T10:00:00.123Z");
    let mut item = topic(&planned, creator.id, "k3j9x0a2mq", created);
    item.title = "Dark mode ✨ for the ÉCLAIR app".into();
    item.description = "Please add \"dark\" mode.\nSoon — üñíçødé.".into();
    item.text = "Long text\n\twith tabs".into();
    item.meta = json!({
        "ctaTitle": "Vote",
        "ctaLink": "https://example.com/x?y=1",
        "feedback": {"list": [1, {"deep": true}], "none": null, "big": i64::MAX},
    })
    .as_object()
    .unwrap()
    .clone();
    item.published_at = Some(created.plus_seconds(60));
    item.updated_at = at("2026-03-06T00:00:00.999Z");
    item.visits = 7;
    let e1 = event(team, EventKind::TopicsCreate, created, 1);
    store
        .insert_topic(&item, None, std::slice::from_ref(&e1))
        .await
        .unwrap();

    let expected = TopicView {
        topic: Topic {
            visits: 0,
            ..item.clone()
        },
        stage: stage_ref(&planned),
        vote_count: 0,
        comment_count: 0,
    };
    assert_eq!(
        store.topic(team, item.id).await.unwrap(),
        Some(expected.clone()),
        "stored with its stage, counts and visits at 0"
    );
    assert_eq!(
        store.topic_by_url_id(team, "k3j9x0a2mq").await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(store.topic(other, item.id).await.unwrap(), None);
    assert_eq!(
        store.topic_by_url_id(other, "k3j9x0a2mq").await.unwrap(),
        None,
        "another team sees nothing"
    );
    assert_eq!(store.topic(team, TopicId::new()).await.unwrap(), None);
    assert_eq!(
        store.topic_by_url_id(team, "k3j9x0a2mz").await.unwrap(),
        None
    );
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id],
        "the creator follows"
    );

    // An anonymous creator is stored with the topic; an unpublished topic reads back as such.
    let anon = anonymous(team, "Blue Happy Elephant", created.plus_seconds(1));
    let mut draft = topic(&planned, anon.id, "anon000001", created.plus_seconds(1));
    draft.published_at = None;
    let e2 = event(team, EventKind::TopicsCreate, draft.created_at, 2);
    store
        .insert_topic(&draft, Some(anon.clone()), std::slice::from_ref(&e2))
        .await
        .unwrap();
    assert_eq!(
        store.subscriber(team, anon.id).await.unwrap(),
        Some(anon.clone())
    );
    assert_eq!(
        read(&*store, &draft).await,
        TopicView {
            topic: draft.clone(),
            stage: stage_ref(&planned),
            vote_count: 0,
            comment_count: 0,
        }
    );
    assert_eq!(
        store.topic_followers(team, draft.id).await.unwrap(),
        vec![anon.id]
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e2)]
    );

    // The counts follow the votes and comments, replies included.
    for (who, n) in [(&creator, 1), (&voter, 2)] {
        store
            .cast_topic_vote(
                team,
                &topic_vote(&item, who.id, created.plus_seconds(n)),
                &[],
            )
            .await
            .unwrap();
    }
    let root = topic_comment(&item, voter.id, None, "+1", created.plus_seconds(3));
    let reply = topic_comment(&item, anon.id, Some(&root), "+2", created.plus_seconds(4));
    for c in [&root, &reply] {
        assert!(store.insert_topic_comment(c, &[]).await.unwrap());
    }
    let counted = read(&*store, &item).await;
    assert_eq!(
        counted,
        TopicView {
            vote_count: 2,
            comment_count: 2,
            ..expected.clone()
        }
    );
    let untouched = read(&*store, &draft).await;
    assert_eq!((untouched.vote_count, untouched.comment_count), (0, 0));

    // The stage shown with the topic is the stage as it is now.
    let first = store
        .insert_stage(&stage(&product, "First", t0()), Some(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.order, 1);
    let mut renamed = store.stage(team, planned.id).await.unwrap().unwrap().stage;
    assert_eq!(renamed.order, 2);
    renamed.name = "Planned — privé".into();
    renamed.meta.is_private = true;
    let renamed = store.save_stage(&renamed, None).await.unwrap().unwrap();
    let now_private = read(&*store, &item).await;
    assert_eq!(now_private.stage, stage_ref(&renamed));
    assert_eq!(
        now_private.stage,
        StageRef {
            id: planned.id,
            name: "Planned — privé".into(),
            order: 2,
            is_private: true,
        }
    );
    assert!(!now_private.is_public());

    // Lists show the same views as single reads.
    let page = store
        .list_topics(team, &topic_query(TopicSort::CreatedAt, Direction::Asc))
        .await
        .unwrap();
    assert_eq!(page.total, 2);
    assert_eq!(page.items, vec![now_private, read(&*store, &draft).await]);
}

pub async fn a_taken_topic_url_id_is_a_conflict_and_writes_nothing(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;

    let first = topic(&planned, creator.id, "taken00001", t0());
    let e1 = event(team, EventKind::TopicsCreate, t0(), 1);
    store
        .insert_topic(&first, None, std::slice::from_ref(&e1))
        .await
        .unwrap();

    let anon = anonymous(team, "Quiet Owl", t0().plus_seconds(1));
    let mut copy = topic(&planned, anon.id, "taken00001", t0().plus_seconds(1));
    let e2 = event(team, EventKind::TopicsCreate, t0().plus_seconds(1), 2);
    assert_eq!(
        store
            .insert_topic(&copy, Some(anon.clone()), std::slice::from_ref(&e2))
            .await,
        Err(conflict(Conflict::TopicUrlId))
    );
    assert_eq!(store.topic(team, copy.id).await.unwrap(), None);
    assert_eq!(
        store.subscriber(team, anon.id).await.unwrap(),
        None,
        "the new creator was not kept either"
    );
    assert_eq!(
        store
            .topic_by_url_id(team, "taken00001")
            .await
            .unwrap()
            .map(|v| v.topic),
        Some(first.clone()),
        "the first topic keeps its url id"
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1)],
        "the refused topic's events were not kept"
    );
    let all = topic_query(TopicSort::CreatedAt, Direction::Asc);
    assert_eq!(listed(&*store, team, &all).await, (url_ids(&[&first]), 1));
    assert_eq!(
        store
            .stage(team, planned.id)
            .await
            .unwrap()
            .unwrap()
            .topic_count,
        1
    );

    // Another team may use the url id.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let foreign_roadmap = stored_roadmap(&*store, other, "Foreign").await;
    let foreign_stage = stored_stage(&*store, &foreign_roadmap, "Stage").await;
    let elsewhere = stored_topic(
        &*store,
        topic(&foreign_stage, outsider.id, "taken00001", t0()),
    )
    .await;
    assert_eq!(
        store
            .topic_by_url_id(other, "taken00001")
            .await
            .unwrap()
            .map(|v| v.topic),
        Some(elsewhere)
    );

    // The store still works after the failed write, and the refused topic left nothing behind.
    copy.url_id = "fresh00001".into();
    let e3 = event(team, EventKind::TopicsCreate, t0().plus_seconds(2), 3);
    store
        .insert_topic(&copy, Some(anon.clone()), std::slice::from_ref(&e3))
        .await
        .unwrap();
    assert_eq!(read(&*store, &copy).await.topic, copy);
    assert_eq!(
        store.subscriber(team, anon.id).await.unwrap(),
        Some(anon.clone())
    );
    assert_eq!(
        store.topic_followers(team, copy.id).await.unwrap(),
        vec![anon.id]
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e3)]
    );
}

pub async fn topic_updates_keep_counts_and_visits(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let shipped = stored_stage(&*store, &product, "Shipped").await;

    let item = topic(&planned, creator.id, "upd0000001", t0());
    let e_create = event(team, EventKind::TopicsCreate, t0(), 1);
    store
        .insert_topic(&item, None, std::slice::from_ref(&e_create))
        .await
        .unwrap();
    store
        .cast_topic_vote(
            team,
            &topic_vote(&item, voter.id, t0().plus_seconds(1)),
            &[],
        )
        .await
        .unwrap();
    let remark = topic_comment(&item, voter.id, None, "why?", t0().plus_seconds(2));
    assert!(store.insert_topic_comment(&remark, &[]).await.unwrap());
    for viewer in ["ip:10.0.0.1", "ip:10.0.0.2"] {
        store
            .record_topic_visit(
                team,
                &topic_visit(item.id, viewer, t0(), VISIT_WINDOW_SECONDS),
            )
            .await
            .unwrap();
    }

    // Every field changes but the counts and visits, which the writer may hold stale.
    let mut changed = item.clone();
    changed.stage_id = shipped.id;
    changed.url_id = "upd0000002".into();
    changed.title = "Crash on ÉCLAIR export".into();
    changed.description = "Steps:\n1. export\n2. 💥".into();
    changed.text = "More text".into();
    changed.meta = json!({"projectId": "p-1", "feedback": [1, 2.5]})
        .as_object()
        .unwrap()
        .clone();
    changed.published_at = None;
    changed.updated_at = at("2026-03-07T08:09:10.012Z");
    changed.visits = 0;
    let e_update = event(team, EventKind::TopicsUpdate, changed.updated_at, 2);
    assert!(store
        .save_topic(&changed, std::slice::from_ref(&e_update))
        .await
        .unwrap());
    assert_eq!(
        read(&*store, &item).await,
        TopicView {
            topic: Topic {
                visits: 2,
                ..changed.clone()
            },
            stage: stage_ref(&shipped),
            vote_count: 1,
            comment_count: 1,
        }
    );
    assert!(store
        .topic_by_url_id(team, "upd0000002")
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        store.topic_by_url_id(team, "upd0000001").await.unwrap(),
        None,
        "the old url id is free"
    );

    // Optional fields are cleared as well as set.
    let mut cleared = changed.clone();
    cleared.meta = Default::default();
    cleared.text = String::new();
    cleared.published_at = Some(at("2026-03-08T00:00:00.001Z"));
    cleared.visits = 1000;
    assert!(store.save_topic(&cleared, &[]).await.unwrap());
    let view = read(&*store, &item).await;
    assert_eq!(
        view.topic,
        Topic {
            visits: 2,
            ..cleared.clone()
        }
    );
    assert_eq!((view.vote_count, view.comment_count), (1, 1));

    // A missing topic, or another team's, is not updated and its events are not kept.
    let ghost = topic(&planned, creator.id, "ghost00001", t0());
    let e_ghost = event(team, EventKind::TopicsUpdate, t0(), 3);
    assert!(!store.save_topic(&ghost, &[e_ghost]).await.unwrap());
    assert_eq!(store.topic(team, ghost.id).await.unwrap(), None);
    let mut hijack = cleared.clone();
    hijack.team_id = other;
    hijack.title = "Hijacked".into();
    let e_hijack = event(other, EventKind::TopicsUpdate, t0(), 4);
    assert!(!store.save_topic(&hijack, &[e_hijack]).await.unwrap());
    assert_eq!(read(&*store, &item).await.topic.title, cleared.title);
    assert_eq!(store.topic(other, item.id).await.unwrap(), None);

    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e_create), stored(&e_update)]
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn topic_delete_removes_comments_votes_follows_and_visits(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let commenter = subscriber(&*store, team, "commenter@example.com").await;
    let follower = subscriber(&*store, team, "follower@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;

    let item = topic(&planned, creator.id, "gone000001", t0());
    let keep = topic(&planned, creator.id, "keep000001", t0().plus_seconds(1));
    let mut comments = Vec::new();
    for t in [&item, &keep] {
        store.insert_topic(t, None, &[]).await.unwrap();
        for (s, n) in [(&voter, 10), (&commenter, 11)] {
            store
                .cast_topic_vote(team, &topic_vote(t, s.id, t0().plus_seconds(n)), &[])
                .await
                .unwrap();
        }
        let root = topic_comment(t, commenter.id, None, "me too", t0().plus_seconds(20));
        let reply = topic_comment(t, voter.id, Some(&root), "same", t0().plus_seconds(21));
        for c in [&root, &reply] {
            assert!(store.insert_topic_comment(c, &[]).await.unwrap());
        }
        comments.push((root, reply));
        assert!(store
            .set_topic_following(team, t.id, follower.id, true, t0().plus_seconds(3600))
            .await
            .unwrap());
        assert_eq!(
            store
                .record_topic_visit(
                    team,
                    &topic_visit(t.id, "viewer", t0(), VISIT_WINDOW_SECONDS)
                )
                .await
                .unwrap(),
            Some(1)
        );
    }

    let e_foreign = event(other, EventKind::TopicsUpdate, t0(), 1);
    assert!(
        !store
            .delete_topic(other, item.id, &[e_foreign])
            .await
            .unwrap(),
        "another team cannot delete it"
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);

    let e_delete = event(team, EventKind::TopicsUpdate, t0().plus_seconds(60), 2);
    assert!(store
        .delete_topic(team, item.id, std::slice::from_ref(&e_delete))
        .await
        .unwrap());
    assert_eq!(store.topic(team, item.id).await.unwrap(), None);
    assert_eq!(
        store.topic_by_url_id(team, "gone000001").await.unwrap(),
        None
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .retract_topic_vote(team, item.id, voter.id)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .cast_topic_vote(team, &topic_vote(&item, follower.id, t0()), &[])
            .await
            .unwrap(),
        TopicVoteOutcome::NotFound
    );
    let (root, reply) = &comments[0];
    assert_eq!(store.topic_comment(team, root.id).await.unwrap(), None);
    assert_eq!(store.topic_comment(team, reply.id).await.unwrap(), None);
    assert_eq!(
        store
            .comment_threads(team, &thread_query(Some(item.id), ThreadScope::Team))
            .await
            .unwrap(),
        empty_page(everything())
    );
    let late = topic_comment(&item, follower.id, None, "late", t0().plus_seconds(90));
    assert!(!store.insert_topic_comment(&late, &[]).await.unwrap());
    assert_eq!(store.topic_followers(team, item.id).await.unwrap(), vec![]);
    assert!(!store
        .set_topic_following(team, item.id, follower.id, true, t0().plus_seconds(3600))
        .await
        .unwrap());
    assert_eq!(
        store
            .record_topic_visit(
                team,
                &topic_visit(item.id, "viewer", t0().plus_seconds(1), 120)
            )
            .await
            .unwrap(),
        None
    );
    let e_again = event(team, EventKind::TopicsUpdate, t0().plus_seconds(61), 3);
    assert!(
        !store.delete_topic(team, item.id, &[e_again]).await.unwrap(),
        "deleting twice finds nothing the second time"
    );
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e_delete)]);
    assert_eq!(store.events(other).await.unwrap(), vec![]);

    // The other topic keeps all of its own.
    let kept = read(&*store, &keep).await;
    assert_eq!(
        (kept.vote_count, kept.comment_count, kept.topic.visits),
        (2, 2, 1)
    );
    assert_eq!(
        store.topic_vote_state(team, keep.id, None).await.unwrap(),
        state(2, false)
    );
    let threads = store
        .comment_threads(team, &thread_query(None, ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(
        shape(&threads),
        vec![(comments[1].0.id, vec![comments[1].1.id])]
    );
    assert_eq!(threads.total, 1);
    assert_eq!(
        store.topic_followers(team, keep.id).await.unwrap(),
        vec![creator.id, commenter.id, voter.id, follower.id]
    );

    // Nothing of the deleted topic survived: stored again, it starts empty.
    store.insert_topic(&item, None, &[]).await.unwrap();
    let fresh = read(&*store, &item).await;
    assert_eq!(
        (fresh.vote_count, fresh.comment_count, fresh.topic.visits),
        (0, 0, 0)
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        state(0, false)
    );
    assert_eq!(
        store
            .comment_threads(team, &thread_query(Some(item.id), ThreadScope::Team))
            .await
            .unwrap(),
        empty_page(everything())
    );
    assert_eq!(store.topic_comment(team, root.id).await.unwrap(), None);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id]
    );
    assert_eq!(
        store
            .record_topic_visit(
                team,
                &topic_visit(item.id, "viewer", t0().plus_seconds(1), 120)
            )
            .await
            .unwrap(),
        Some(1),
        "the old visit record went with the topic"
    );
    let again = topic_vote(&item, voter.id, t0().plus_seconds(120));
    assert_eq!(
        store.cast_topic_vote(team, &again, &[]).await.unwrap(),
        TopicVoteOutcome::Cast {
            vote: again.clone(),
            vote_count: 1
        }
    );
}

pub async fn topic_lists_filter_sort_and_page(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let v1 = subscriber(&*store, team, "v1@example.com").await;
    let v2 = subscriber(&*store, team, "v2@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let side = stored_roadmap(&*store, team, "Side").await;
    let a = stored_stage(&*store, &product, "A").await;
    let b = stored_stage(&*store, &product, "B").await;
    let c = stored_stage(&*store, &side, "C").await;

    let t = |n: u32| at(&format!("2026-03-05T00:00:0{n}.00{n}Z"));
    let make = |id: u128, stage: &Stage, title: &str, created: u32, updated: u32| {
        let mut x = topic(stage, creator.id, &format!("list{id:06}"), t(created));
        x.id = TopicId(Uuid::from_u128(
            0x0000_0000_0000_7000_8000_0000_0000_0000 + id,
        ));
        x.title = title.into();
        x.updated_at = t(updated);
        x
    };
    // `apple` and `APPLE` tie on every key: the id decides, in the list's direction.
    let apple = make(1, &a, "apple", 1, 6);
    let apple_upper = make(9, &a, "APPLE", 1, 6);
    let mut banana = make(5, &a, "Banana", 2, 5);
    banana.published_at = None;
    let cherry = make(3, &b, "cherry", 3, 4);
    let zebra = make(7, &c, "zebra", 4, 3);
    let eclair = make(2, &b, "Éclair", 5, 2);
    for x in [&zebra, &banana, &apple_upper, &eclair, &cherry, &apple] {
        store.insert_topic(x, None, &[]).await.unwrap();
    }
    for (x, voters) in [
        (&apple, vec![&v1, &v2]),
        (&apple_upper, vec![&v2, &v1]),
        (&zebra, vec![&v1, &v2]),
        (&cherry, vec![&v2]),
    ] {
        for v in voters {
            store
                .cast_topic_vote(team, &topic_vote(x, v.id, t0()), &[])
                .await
                .unwrap();
        }
    }
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let foreign_roadmap = stored_roadmap(&*store, other, "Foreign").await;
    let foreign_stage = stored_stage(&*store, &foreign_roadmap, "Stage").await;
    let foreign = stored_topic(
        &*store,
        topic(&foreign_stage, outsider.id, "foreign001", t0()),
    )
    .await;

    let sorted = |sort: TopicSort, direction: Direction| topic_query(sort, direction);
    let cases = [
        (
            TopicSort::CreatedAt,
            Direction::Asc,
            [&apple, &apple_upper, &banana, &cherry, &zebra, &eclair],
        ),
        (
            TopicSort::CreatedAt,
            Direction::Desc,
            [&eclair, &zebra, &cherry, &banana, &apple_upper, &apple],
        ),
        (
            TopicSort::UpdatedAt,
            Direction::Asc,
            [&eclair, &zebra, &cherry, &banana, &apple, &apple_upper],
        ),
        (
            TopicSort::UpdatedAt,
            Direction::Desc,
            [&apple_upper, &apple, &banana, &cherry, &zebra, &eclair],
        ),
        // Lowercased, then bytewise: `é` sorts after `z`.
        (
            TopicSort::Title,
            Direction::Asc,
            [&apple, &apple_upper, &banana, &cherry, &zebra, &eclair],
        ),
        (
            TopicSort::Title,
            Direction::Desc,
            [&eclair, &zebra, &cherry, &banana, &apple_upper, &apple],
        ),
        (
            TopicSort::VoteCount,
            Direction::Asc,
            [&eclair, &banana, &cherry, &apple, &zebra, &apple_upper],
        ),
        (
            TopicSort::VoteCount,
            Direction::Desc,
            [&apple_upper, &zebra, &apple, &cherry, &banana, &eclair],
        ),
    ];
    for (sort, direction, expected) in cases {
        assert_eq!(
            listed(&*store, team, &sorted(sort, direction)).await,
            (url_ids(&expected), 6),
            "{sort:?} {direction:?}"
        );
    }

    // Filters: roadmap, stage, published only, and together.
    let filtered = |roadmap: Option<&sounding_domain::roadmap::Roadmap>,
                    stage: Option<&Stage>,
                    published_only: bool| TopicQuery {
        roadmap_id: roadmap.map(|r| r.id),
        stage_id: stage.map(|s| s.id),
        published_only,
        ..sorted(TopicSort::Title, Direction::Asc)
    };
    assert_eq!(
        listed(&*store, team, &filtered(Some(&product), None, false)).await,
        (
            url_ids(&[&apple, &apple_upper, &banana, &cherry, &eclair]),
            5
        )
    );
    assert_eq!(
        listed(&*store, team, &filtered(Some(&side), None, false)).await,
        (url_ids(&[&zebra]), 1)
    );
    assert_eq!(
        listed(&*store, team, &filtered(None, Some(&b), false)).await,
        (url_ids(&[&cherry, &eclair]), 2)
    );
    assert_eq!(
        listed(&*store, team, &filtered(None, None, true)).await,
        (
            url_ids(&[&apple, &apple_upper, &cherry, &zebra, &eclair]),
            5
        )
    );
    assert_eq!(
        listed(&*store, team, &filtered(Some(&product), Some(&a), true)).await,
        (url_ids(&[&apple, &apple_upper]), 2)
    );
    assert_eq!(
        listed(&*store, team, &filtered(Some(&side), Some(&a), false)).await,
        (vec![], 0),
        "a stage of another roadmap selects nothing"
    );

    // Pages: the total counts every selected topic.
    let mut window = sorted(TopicSort::CreatedAt, Direction::Asc);
    window.page = PageRequest {
        limit: 2,
        offset: 1,
    };
    assert_eq!(
        listed(&*store, team, &window).await,
        (url_ids(&[&apple_upper, &banana]), 6)
    );
    window.page = PageRequest {
        limit: 4,
        offset: 4,
    };
    assert_eq!(
        listed(&*store, team, &window).await,
        (url_ids(&[&zebra, &eclair]), 6)
    );
    window.page = PageRequest {
        limit: 10,
        offset: 10,
    };
    window.published_only = true;
    assert_eq!(
        listed(&*store, team, &window).await,
        (vec![], 5),
        "past the end: no items, the total still counts"
    );

    // The lists carry full views; another team lists only its own.
    let page = store
        .list_topics(team, &sorted(TopicSort::VoteCount, Direction::Desc))
        .await
        .unwrap();
    assert_eq!(page.items[0], read(&*store, &apple_upper).await);
    assert_eq!(page.items[0].vote_count, 2);
    assert_eq!(
        listed(
            &*store,
            other,
            &sorted(TopicSort::CreatedAt, Direction::Asc)
        )
        .await,
        (url_ids(&[&foreign]), 1)
    );
}

pub async fn topic_visits_count_once_per_viewer_per_window(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "visit00001", t0())).await;
    let second = stored_topic(&*store, topic(&planned, creator.id, "visit00002", t0())).await;

    let window = VISIT_WINDOW_SECONDS;
    assert_eq!(window, 120);
    let visit = |topic: TopicId, viewer: &'static str, secs: i64| {
        let store = store.clone();
        async move {
            store
                .record_topic_visit(
                    team,
                    &topic_visit(topic, viewer, t0().plus_seconds(secs), window),
                )
                .await
                .unwrap()
        }
    };
    assert_eq!(visit(item.id, "ip:10.0.0.1", 0).await, Some(1));
    assert_eq!(visit(item.id, "ip:10.0.0.1", 60).await, Some(1));
    assert_eq!(
        visit(item.id, "ip:10.0.0.1", 119).await,
        Some(1),
        "within the window: not counted"
    );
    assert_eq!(
        visit(item.id, "ip:10.0.0.1", 120).await,
        Some(2),
        "a full window later: counted"
    );
    assert_eq!(
        visit(item.id, "ip:10.0.0.1", 121).await,
        Some(2),
        "the window starts again at the counted view"
    );
    assert_eq!(visit(item.id, "ip:10.0.0.1", 239).await, Some(2));
    assert_eq!(visit(item.id, "ip:10.0.0.1", 500).await, Some(3));
    assert_eq!(
        visit(item.id, "ip:10.0.0.2", 500).await,
        Some(4),
        "another viewer counts"
    );
    assert_eq!(visit(item.id, "sub:0191c8a0", 501).await, Some(5));
    assert_eq!(
        visit(second.id, "ip:10.0.0.1", 501).await,
        Some(1),
        "each topic counts its own viewers"
    );
    assert_eq!(read(&*store, &item).await.topic.visits, 5);
    assert_eq!(read(&*store, &second).await.topic.visits, 1);

    // A missing topic, or another team's, counts nothing.
    assert_eq!(visit(TopicId::new(), "ip:10.0.0.3", 600).await, None);
    assert_eq!(
        store
            .record_topic_visit(
                other,
                &topic_visit(item.id, "ip:10.0.0.3", t0().plus_seconds(600), window)
            )
            .await
            .unwrap(),
        None
    );
    assert_eq!(read(&*store, &item).await.topic.visits, 5);
    let listed = store
        .list_topics(team, &topic_query(TopicSort::CreatedAt, Direction::Asc))
        .await
        .unwrap();
    assert_eq!(
        listed
            .items
            .iter()
            .map(|v| v.topic.visits)
            .collect::<BTreeSet<_>>(),
        BTreeSet::from([1, 5])
    );
}

pub async fn concurrent_topic_visits_count_each_viewer_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "crowd00001", t0())).await;
    let busy = stored_topic(&*store, topic(&planned, creator.id, "crowd00002", t0())).await;

    let (item_id, busy_id) = (item.id, busy.id);
    // One viewer's first view, twenty times at once: counted once.
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .record_topic_visit(
                        team,
                        &topic_visit(item_id, "ip:10.0.0.1", t0(), VISIT_WINDOW_SECONDS),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), Some(1));
    }
    assert_eq!(read(&*store, &item).await.topic.visits, 1);

    // Twenty viewers at once: each counted, each told the count just after its own view.
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .record_topic_visit(
                        team,
                        &topic_visit(
                            busy_id,
                            &format!("ip:10.0.1.{i}"),
                            t0(),
                            VISIT_WINDOW_SECONDS,
                        ),
                    )
                    .await
                    .unwrap()
                    .expect("the topic exists")
            })
        })
        .collect();
    let mut after = Vec::new();
    for task in tasks {
        after.push(task.await.unwrap());
    }
    after.sort_unstable();
    assert_eq!(after, (1..=20).collect::<Vec<i64>>());
    assert_eq!(read(&*store, &busy).await.topic.visits, 20);
}

pub async fn topic_votes_are_one_per_subscriber_and_counted(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let s1 = subscriber(&*store, team, "s1@example.com").await;
    let s2 = subscriber(&*store, team, "s2@example.com").await;
    let s3 = subscriber(&*store, team, "s3@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "vote000001", t0())).await;
    let second = stored_topic(&*store, topic(&planned, creator.id, "vote000002", t0())).await;

    let v1 = topic_vote(&item, s1.id, at("2026-03-05T00:00:00.001Z"));
    let e1 = event(team, EventKind::TopicVotesCreate, v1.created_at, 1);
    assert_eq!(
        store
            .cast_topic_vote(team, &v1, std::slice::from_ref(&e1))
            .await
            .unwrap(),
        TopicVoteOutcome::Cast {
            vote: v1.clone(),
            vote_count: 1
        }
    );
    let v2 = topic_vote(&item, s2.id, at("2026-03-05T00:00:00.002Z"));
    let e2 = event(team, EventKind::TopicVotesCreate, v2.created_at, 2);
    assert_eq!(
        store
            .cast_topic_vote(team, &v2, std::slice::from_ref(&e2))
            .await
            .unwrap(),
        TopicVoteOutcome::Cast {
            vote: v2.clone(),
            vote_count: 2
        }
    );

    // A second vote of s1 is refused and writes nothing.
    let repeat = topic_vote(&item, s1.id, at("2026-03-06T00:00:00.003Z"));
    let e_repeat = event(team, EventKind::TopicVotesCreate, repeat.created_at, 3);
    assert_eq!(
        store
            .cast_topic_vote(team, &repeat, &[e_repeat])
            .await
            .unwrap(),
        TopicVoteOutcome::AlreadyVoted
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(s1.id))
            .await
            .unwrap(),
        state(2, true)
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(s2.id))
            .await
            .unwrap(),
        state(2, true)
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(s3.id))
            .await
            .unwrap(),
        state(2, false)
    );
    assert_eq!(
        store.topic_vote_state(team, item.id, None).await.unwrap(),
        state(2, false)
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e2)],
        "the refused vote appended nothing"
    );

    // Another team's topic, or a missing one, takes no vote.
    let e_foreign = event(other, EventKind::TopicVotesCreate, t0(), 4);
    assert_eq!(
        store
            .cast_topic_vote(other, &topic_vote(&item, s3.id, t0()), &[e_foreign])
            .await
            .unwrap(),
        TopicVoteOutcome::NotFound
    );
    assert_eq!(
        store.topic_vote_state(other, item.id, None).await.unwrap(),
        None
    );
    let missing = topic(&planned, creator.id, "missing001", t0());
    let e_missing = event(team, EventKind::TopicVotesCreate, t0(), 5);
    assert_eq!(
        store
            .cast_topic_vote(team, &topic_vote(&missing, s3.id, t0()), &[e_missing])
            .await
            .unwrap(),
        TopicVoteOutcome::NotFound
    );
    assert_eq!(
        store
            .topic_vote_state(team, missing.id, Some(s3.id))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(s3.id))
            .await
            .unwrap(),
        state(2, false)
    );
    assert_eq!(store.events(team).await.unwrap().len(), 2);
    assert_eq!(store.events(other).await.unwrap(), vec![]);

    // Votes are per topic: s1 may vote on the second one.
    assert_eq!(
        store
            .topic_vote_state(team, second.id, Some(s1.id))
            .await
            .unwrap(),
        state(0, false)
    );
    let on_second = topic_vote(&second, s1.id, t0());
    assert_eq!(
        store.cast_topic_vote(team, &on_second, &[]).await.unwrap(),
        TopicVoteOutcome::Cast {
            vote: on_second,
            vote_count: 1
        }
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);
    assert_eq!(read(&*store, &second).await.vote_count, 1);
}

pub async fn concurrent_topic_votes_are_all_counted(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "race000001", t0())).await;
    let mut voters = Vec::new();
    for i in 0..30 {
        voters.push(subscriber(&*store, team, &format!("voter{i}@example.com")).await);
    }

    let tasks: Vec<_> = voters
        .iter()
        .enumerate()
        .map(|(i, voter)| {
            let store = store.clone();
            let v = topic_vote(&item, voter.id, t0().plus_seconds(i as i64));
            let e = event(team, EventKind::TopicVotesCreate, v.created_at, i as i64);
            tokio::spawn(async move { store.cast_topic_vote(team, &v, &[e]).await.unwrap() })
        })
        .collect();
    let mut totals = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            TopicVoteOutcome::Cast { vote_count, .. } => totals.push(vote_count),
            outcome => panic!("every voter's first vote is cast, got {outcome:?}"),
        }
    }
    totals.sort_unstable();
    assert_eq!(
        totals,
        (1..=30).collect::<Vec<i64>>(),
        "each cast reports the count just after its own vote"
    );
    assert_eq!(
        store.topic_vote_state(team, item.id, None).await.unwrap(),
        state(30, false)
    );
    assert_eq!(read(&*store, &item).await.vote_count, 30);
    assert_eq!(store.events(team).await.unwrap().len(), 30);

    // Repeated votes at once still count once per voter.
    let tasks: Vec<_> = voters
        .iter()
        .take(10)
        .map(|voter| {
            let store = store.clone();
            let v = topic_vote(&item, voter.id, t0().plus_seconds(100));
            let e = event(team, EventKind::TopicVotesCreate, v.created_at, 100);
            tokio::spawn(async move { store.cast_topic_vote(team, &v, &[e]).await.unwrap() })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), TopicVoteOutcome::AlreadyVoted);
    }
    assert_eq!(read(&*store, &item).await.vote_count, 30);
    assert_eq!(store.events(team).await.unwrap().len(), 30);
}

pub async fn retracting_a_topic_vote_is_idempotent(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let s1 = subscriber(&*store, team, "s1@example.com").await;
    let s2 = subscriber(&*store, team, "s2@example.com").await;
    let s3 = subscriber(&*store, team, "s3@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "back000001", t0())).await;
    for s in [&s1, &s2] {
        store
            .cast_topic_vote(team, &topic_vote(&item, s.id, t0()), &[])
            .await
            .unwrap();
    }
    let retract = |who: SubscriberId, team: TeamId, topic: TopicId| {
        let store = store.clone();
        async move { store.retract_topic_vote(team, topic, who).await.unwrap() }
    };

    assert_eq!(retract(s1.id, team, item.id).await, Some(1));
    assert_eq!(
        retract(s1.id, team, item.id).await,
        Some(1),
        "retracting again changes nothing"
    );
    assert_eq!(
        retract(s3.id, team, item.id).await,
        Some(1),
        "a subscriber who never voted retracts nothing"
    );
    assert_eq!(
        store
            .topic_vote_state(team, item.id, Some(s1.id))
            .await
            .unwrap(),
        state(1, false)
    );
    assert_eq!(read(&*store, &item).await.vote_count, 1);
    assert_eq!(
        retract(s2.id, other, item.id).await,
        None,
        "another team cannot retract"
    );
    assert_eq!(retract(s2.id, team, TopicId::new()).await, None);
    assert_eq!(read(&*store, &item).await.vote_count, 1);

    // A retracted vote may be cast again.
    let again = topic_vote(&item, s1.id, t0().plus_seconds(5));
    assert_eq!(
        store.cast_topic_vote(team, &again, &[]).await.unwrap(),
        TopicVoteOutcome::Cast {
            vote: again.clone(),
            vote_count: 2
        }
    );
    assert_eq!(retract(s2.id, team, item.id).await, Some(1));
    assert_eq!(retract(s1.id, team, item.id).await, Some(0));
    assert_eq!(
        retract(s1.id, team, item.id).await,
        Some(0),
        "the count never goes below zero"
    );
    assert_eq!(read(&*store, &item).await.vote_count, 0);
    assert_eq!(store.events(team).await.unwrap(), vec![]);
}

pub async fn comment_threads_hold_every_reply_under_their_root(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let item = stored_topic(&*store, topic(&planned, creator.id, "talk000001", t0())).await;
    let elsewhere = stored_topic(&*store, topic(&planned, creator.id, "talk000002", t0())).await;

    let t = |n: u32| at(&format!("2026-03-05T00:00:0{n}.00{n}Z"));
    let made = |id: u128,
                on: &Topic,
                author: &Subscriber,
                parent: Option<&TopicComment>,
                created: u32,
                updated: u32| {
        let mut c = topic_comment(on, author.id, parent, &format!("comment {id}"), t(created));
        c.id = TopicCommentId(Uuid::from_u128(
            0x0000_0000_0000_7000_8000_0000_0000_0000 + id,
        ));
        if parent.is_none() {
            c.root_id = c.id;
        }
        c.updated_at = t(updated);
        c
    };
    // Three top-level comments; r_b and r_c were written at the same instant and last edited at
    // the same instant (the id decides).
    let r_a = made(0x10, &item, &a, None, 1, 9);
    let r_b = made(0x30, &item, &b, None, 2, 3);
    let r_c = made(0x20, &item, &a, None, 2, 3);
    // r_a's thread three levels deep: a reply, a reply to it, and a later direct reply (their
    // ids run against their times, and they are inserted in yet another order).
    let reply = made(0x43, &item, &b, Some(&r_a), 4, 4);
    let deep = made(0x42, &item, &a, Some(&reply), 5, 5);
    let late = made(0x41, &item, &creator, Some(&r_a), 7, 7);
    // Two replies in r_c's thread written at the same instant.
    let tie_high = made(0x52, &item, &b, Some(&r_c), 8, 8);
    let tie_low = made(0x51, &item, &a, Some(&r_c), 8, 8);
    // A thread on another topic, written first.
    let r_other = made(0x60, &elsewhere, &b, None, 0, 0);
    let r_other_reply = made(0x61, &elsewhere, &a, Some(&r_other), 6, 6);
    assert_eq!((deep.parent_id, deep.root_id), (Some(reply.id), r_a.id));

    let mut appended = Vec::new();
    // A reply needs its parent stored first (`insert_topic_comment`), nothing more.
    for (n, c) in [
        &r_c,
        &tie_high,
        &r_a,
        &late,
        &reply,
        &deep,
        &r_other,
        &tie_low,
        &r_b,
        &r_other_reply,
    ]
    .into_iter()
    .enumerate()
    {
        let e = event(team, EventKind::TopicCommentsCreate, c.created_at, n as i64);
        assert!(store
            .insert_topic_comment(c, std::slice::from_ref(&e))
            .await
            .unwrap());
        appended.push(stored(&e));
    }

    let who = |c: &TopicComment| {
        [&creator, &a, &b]
            .into_iter()
            .find(|s| s.id == c.creator_id)
            .cloned()
    };
    let on_item = |c: &TopicComment| comment_view(c, who(c).as_ref(), &item);
    let query = |sort: CommentSort, direction: Direction, page: PageRequest| ThreadQuery {
        sort,
        direction,
        page,
        ..thread_query(Some(item.id), ThreadScope::Team)
    };
    let threads = |q: ThreadQuery| {
        let store = store.clone();
        async move { store.comment_threads(team, &q).await.unwrap() }
    };
    let all = everything();

    let oldest_first = threads(query(CommentSort::CreatedAt, Direction::Asc, all)).await;
    assert_eq!(
        oldest_first,
        Paged {
            items: vec![
                CommentThread {
                    root: on_item(&r_a),
                    replies: vec![on_item(&reply), on_item(&deep), on_item(&late)],
                },
                CommentThread {
                    root: on_item(&r_c),
                    replies: vec![on_item(&tie_low), on_item(&tie_high)],
                },
                CommentThread {
                    root: on_item(&r_b),
                    replies: vec![],
                },
            ],
            total: 3,
            page: all,
        },
        "every reply under its root, oldest first, whatever its depth"
    );
    assert_eq!(
        shape(&threads(query(CommentSort::CreatedAt, Direction::Desc, all)).await),
        vec![
            (r_b.id, vec![]),
            (r_c.id, vec![tie_low.id, tie_high.id]),
            (r_a.id, vec![reply.id, deep.id, late.id]),
        ],
        "descending orders the roots (the tie too), never the replies"
    );
    assert_eq!(
        shape(&threads(query(CommentSort::UpdatedAt, Direction::Asc, all)).await),
        vec![
            (r_c.id, vec![tie_low.id, tie_high.id]),
            (r_b.id, vec![]),
            (r_a.id, vec![reply.id, deep.id, late.id]),
        ]
    );
    assert_eq!(
        shape(&threads(query(CommentSort::UpdatedAt, Direction::Desc, all)).await),
        vec![
            (r_a.id, vec![reply.id, deep.id, late.id]),
            (r_b.id, vec![]),
            (r_c.id, vec![tie_low.id, tie_high.id]),
        ]
    );

    // Pages count top-level comments only.
    let second = PageRequest {
        limit: 1,
        offset: 1,
    };
    let page = threads(query(CommentSort::CreatedAt, Direction::Asc, second)).await;
    assert_eq!(
        (shape(&page), page.total, page.page),
        (vec![(r_c.id, vec![tie_low.id, tie_high.id])], 3, second)
    );
    let past = PageRequest {
        limit: 10,
        offset: 3,
    };
    assert_eq!(
        threads(query(CommentSort::CreatedAt, Direction::Asc, past)).await,
        Paged {
            items: vec![],
            total: 3,
            page: past
        }
    );

    // The team's threads across topics, each comment naming its topic.
    let team_wide = threads(thread_query(None, ThreadScope::Team)).await;
    assert_eq!(team_wide.total, 4);
    assert_eq!(
        team_wide.items[0],
        CommentThread {
            root: comment_view(&r_other, Some(&b), &elsewhere),
            replies: vec![comment_view(&r_other_reply, Some(&a), &elsewhere)],
        }
    );
    assert_eq!(
        shape(&team_wide)[1..],
        shape(&oldest_first)[..],
        "the item's threads follow in the same order"
    );

    // Every comment counts on its topic; single comments are read within the team.
    assert_eq!(read(&*store, &item).await.comment_count, 8);
    assert_eq!(read(&*store, &elsewhere).await.comment_count, 2);
    assert_eq!(
        store.topic_comment(team, deep.id).await.unwrap(),
        Some(deep.clone())
    );
    assert_eq!(
        store.topic_comment(team, r_a.id).await.unwrap(),
        Some(r_a.clone())
    );
    assert_eq!(store.topic_comment(other, deep.id).await.unwrap(), None);
    assert_eq!(
        store
            .topic_comment(team, TopicCommentId::new())
            .await
            .unwrap(),
        None
    );

    // An author who is not (or no longer) a stored subscriber reads as none; the comment stays.
    let stranger = SubscriberId::new();
    let mut orphan = made(0x70, &elsewhere, &a, None, 9, 9);
    orphan.creator_id = stranger;
    let e_orphan = event(team, EventKind::TopicCommentsCreate, orphan.created_at, 50);
    assert!(store
        .insert_topic_comment(&orphan, std::slice::from_ref(&e_orphan))
        .await
        .unwrap());
    appended.push(stored(&e_orphan));
    let orphaned = threads(thread_query(Some(elsewhere.id), ThreadScope::Team)).await;
    assert_eq!(orphaned.total, 2);
    assert_eq!(
        orphaned.items[1].root,
        comment_view(&orphan, None, &elsewhere)
    );

    // A comment on a missing topic, or through another team, is refused and appends nothing.
    let missing = topic(&planned, creator.id, "missing001", t0());
    let lost = topic_comment(&missing, a.id, None, "lost", t0());
    let e_missing = event(team, EventKind::TopicCommentsCreate, t0(), 90);
    assert!(!store
        .insert_topic_comment(&lost, &[e_missing])
        .await
        .unwrap());
    let mut foreign = topic_comment(&item, a.id, None, "wrong team", t0());
    foreign.team_id = other;
    let e_foreign = event(other, EventKind::TopicCommentsCreate, t0(), 91);
    assert!(!store
        .insert_topic_comment(&foreign, &[e_foreign])
        .await
        .unwrap());
    assert_eq!(store.topic_comment(team, lost.id).await.unwrap(), None);
    assert_eq!(store.topic_comment(other, foreign.id).await.unwrap(), None);
    assert_eq!(read(&*store, &item).await.comment_count, 8);
    assert_eq!(
        store
            .comment_threads(other, &thread_query(None, ThreadScope::Team))
            .await
            .unwrap(),
        empty_page(all)
    );
    assert_eq!(
        store
            .comment_threads(team, &thread_query(Some(TopicId::new()), ThreadScope::Team))
            .await
            .unwrap(),
        empty_page(all)
    );
    assert_eq!(store.events(team).await.unwrap(), appended);
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn public_threads_hide_unpublished_and_private_stage_topics(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let open = stored_stage(&*store, &product, "Open").await;
    let mut hidden = stored_stage(&*store, &product, "Hidden").await;
    hidden.meta.is_private = true;
    let hidden = store.save_stage(&hidden, None).await.unwrap().unwrap();

    let visible = stored_topic(&*store, topic(&open, creator.id, "open000001", t0())).await;
    let mut draft = topic(&open, creator.id, "draft00001", t0());
    draft.published_at = None;
    let draft = stored_topic(&*store, draft).await;
    let secret = stored_topic(&*store, topic(&hidden, creator.id, "secret0001", t0())).await;
    let mut roots = Vec::new();
    for (n, t) in [&visible, &draft, &secret].into_iter().enumerate() {
        let root = topic_comment(t, a.id, None, "root", t0().plus_seconds(n as i64));
        let reply = topic_comment(t, creator.id, Some(&root), "reply", t0().plus_seconds(10));
        for c in [&root, &reply] {
            assert!(store.insert_topic_comment(c, &[]).await.unwrap());
        }
        roots.push((root.id, vec![reply.id]));
    }
    let threads = |topic: Option<TopicId>, scope: ThreadScope| {
        let store = store.clone();
        async move {
            store
                .comment_threads(team, &thread_query(topic, scope))
                .await
                .unwrap()
        }
    };

    let team_view = threads(None, ThreadScope::Team).await;
    assert_eq!((shape(&team_view), team_view.total), (roots.clone(), 3));
    let public = threads(None, ThreadScope::Public).await;
    assert_eq!(
        (shape(&public), public.total),
        (vec![roots[0].clone()], 1),
        "only the published topic on a public stage"
    );
    let member = threads(None, ThreadScope::Member).await;
    assert_eq!(
        (shape(&member), member.total),
        (vec![roots[0].clone(), roots[2].clone()], 2),
        "a team member sees published topics on private stages too, never drafts"
    );
    assert_eq!(
        threads(Some(draft.id), ThreadScope::Member).await,
        empty_page(everything())
    );
    let secret_thread = threads(Some(secret.id), ThreadScope::Member).await;
    assert_eq!(
        (shape(&secret_thread), secret_thread.total),
        (vec![roots[2].clone()], 1)
    );
    assert_eq!(secret_thread.items[0].root.topic.id, secret.id);
    for hidden_topic in [&draft, &secret] {
        assert_eq!(
            threads(Some(hidden_topic.id), ThreadScope::Public).await,
            empty_page(everything())
        );
        assert_eq!(
            threads(Some(hidden_topic.id), ThreadScope::Team)
                .await
                .total,
            1
        );
    }

    // Publishing the draft and opening the stage show their threads.
    let mut published = draft.clone();
    published.published_at = Some(t0().plus_seconds(100));
    assert!(store.save_topic(&published, &[]).await.unwrap());
    let public = threads(None, ThreadScope::Public).await;
    assert_eq!((shape(&public), public.total), (roots[..2].to_vec(), 2));
    let mut opened = hidden.clone();
    opened.meta.is_private = false;
    store.save_stage(&opened, None).await.unwrap().unwrap();
    let public = threads(None, ThreadScope::Public).await;
    assert_eq!((shape(&public), public.total), (roots.clone(), 3));
    // Closing the stage again and moving the first topic onto it hides both.
    let mut closed = opened.clone();
    closed.meta.is_private = true;
    let closed = store.save_stage(&closed, None).await.unwrap().unwrap();
    let mut moved = visible.clone();
    moved.stage_id = closed.id;
    assert!(store.save_topic(&moved, &[]).await.unwrap());
    let public = threads(None, ThreadScope::Public).await;
    assert_eq!((shape(&public), public.total), (vec![roots[1].clone()], 1));
}

pub async fn topic_following_is_idempotent_and_creators_and_commenters_follow(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let created = at("2026-03-05T00:00:00.001Z");
    let item = stored_topic(&*store, topic(&planned, creator.id, "flw0000001", created)).await;
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id],
        "the creator follows"
    );

    let say = |who: &Subscriber, parent: Option<&TopicComment>, secs: i64| {
        topic_comment(&item, who.id, parent, "hi", created.plus_seconds(secs))
    };
    let first = say(&a, None, 60);
    assert!(store.insert_topic_comment(&first, &[]).await.unwrap());
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "a commenter follows"
    );
    assert!(store
        .insert_topic_comment(&say(&a, Some(&first), 120), &[])
        .await
        .unwrap());
    assert!(store
        .insert_topic_comment(&say(&creator, Some(&first), 180), &[])
        .await
        .unwrap());
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "commenting again does not follow twice"
    );

    let follow = |who: SubscriberId, on: bool, secs: i64| {
        let store = store.clone();
        let topic = item.id;
        async move {
            store
                .set_topic_following(team, topic, who, on, created.plus_seconds(secs))
                .await
                .unwrap()
        }
    };
    assert!(follow(b.id, true, 3600).await);
    assert!(follow(b.id, true, 3601).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id]
    );
    assert!(follow(a.id, true, 7000).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id],
        "following again keeps the first follow's time"
    );
    assert!(follow(a.id, false, 0).await);
    assert!(follow(a.id, false, 0).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id]
    );
    assert!(follow(a.id, true, 7200).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id, a.id],
        "a new follow goes last"
    );
    // The follow time comes from the caller: an earlier time sorts earlier.
    let c = subscriber(&*store, team, "c@example.com").await;
    assert!(follow(c.id, true, 30).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![creator.id, c.id, b.id, a.id]
    );
    assert!(follow(creator.id, false, 0).await);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![c.id, b.id, a.id],
        "the creator may stop following"
    );

    // Another team's topic, or a missing one, cannot be followed.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    assert!(!store
        .set_topic_following(other, item.id, outsider.id, true, created)
        .await
        .unwrap());
    assert!(!store
        .set_topic_following(other, item.id, b.id, false, created)
        .await
        .unwrap());
    assert!(!store
        .set_topic_following(team, TopicId::new(), b.id, true, created)
        .await
        .unwrap());
    assert_eq!(store.topic_followers(other, item.id).await.unwrap(), vec![]);
    assert_eq!(
        store.topic_followers(team, item.id).await.unwrap(),
        vec![c.id, b.id, a.id]
    );

    // Two commenters who start following at the same instant are ordered by id.
    let second = stored_topic(&*store, topic(&planned, creator.id, "flw0000002", created)).await;
    let (low, high) = if a.id < b.id { (&a, &b) } else { (&b, &a) };
    let same = created.plus_seconds(30);
    for who in [high, low] {
        let c = topic_comment(&second, who.id, None, "same time", same);
        assert!(store.insert_topic_comment(&c, &[]).await.unwrap());
    }
    assert_eq!(
        store.topic_followers(team, second.id).await.unwrap(),
        vec![creator.id, low.id, high.id]
    );
}

pub async fn topic_events_are_appended_with_the_writes(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let at_n = |n: i64| t0().plus_seconds(n);

    let anon = anonymous(team, "Swift Fox", at_n(0));
    let item = topic(&planned, anon.id, "evts000001", at_n(0));
    let e1 = event(team, EventKind::TopicsCreate, at_n(0), 1);
    store
        .insert_topic(&item, Some(anon), std::slice::from_ref(&e1))
        .await
        .unwrap();

    let mut changed = item.clone();
    changed.title = "Changed".into();
    changed.updated_at = at_n(1);
    let e2 = event(team, EventKind::TopicsUpdate, at_n(1), 2);
    assert!(store
        .save_topic(&changed, std::slice::from_ref(&e2))
        .await
        .unwrap());

    let v = topic_vote(&item, voter.id, at_n(2));
    let e3 = event(team, EventKind::TopicVotesCreate, at_n(2), 3);
    store
        .cast_topic_vote(team, &v, std::slice::from_ref(&e3))
        .await
        .unwrap();

    let c = topic_comment(&item, voter.id, None, "nice", at_n(3));
    let e4 = event(team, EventKind::TopicCommentsCreate, at_n(3), 4);
    let e5 = event(team, EventKind::TopicCommentsCreate, at_n(3), 5);
    assert!(store
        .insert_topic_comment(&c, &[e4.clone(), e5.clone()])
        .await
        .unwrap());

    // Writes that do nothing append nothing.
    let refused = |n: i64| vec![event(team, EventKind::TopicsUpdate, at_n(n), n)];
    assert_eq!(
        store
            .cast_topic_vote(team, &topic_vote(&item, voter.id, at_n(4)), &refused(100))
            .await
            .unwrap(),
        TopicVoteOutcome::AlreadyVoted
    );
    let clash = topic(&planned, creator.id, "evts000001", at_n(5));
    assert!(store
        .insert_topic(&clash, None, &refused(101))
        .await
        .is_err());
    let ghost = topic(&planned, creator.id, "ghost00001", at_n(6));
    assert!(!store.save_topic(&ghost, &refused(102)).await.unwrap());
    assert!(!store
        .delete_topic(team, ghost.id, &refused(103))
        .await
        .unwrap());
    assert_eq!(
        store
            .cast_topic_vote(team, &topic_vote(&ghost, voter.id, at_n(7)), &refused(104))
            .await
            .unwrap(),
        TopicVoteOutcome::NotFound
    );
    assert!(!store
        .insert_topic_comment(
            &topic_comment(&ghost, voter.id, None, "nope", at_n(8)),
            &refused(105)
        )
        .await
        .unwrap());
    // Writes without events append none.
    store
        .record_topic_visit(
            team,
            &topic_visit(item.id, "viewer", at_n(9), VISIT_WINDOW_SECONDS),
        )
        .await
        .unwrap();
    store
        .retract_topic_vote(team, item.id, voter.id)
        .await
        .unwrap();
    store
        .set_topic_following(team, item.id, voter.id, false, at_n(9))
        .await
        .unwrap();

    let e6 = event(team, EventKind::TopicsUpdate, at_n(10), 6);
    assert!(store
        .delete_topic(team, item.id, std::slice::from_ref(&e6))
        .await
        .unwrap());

    assert_eq!(
        store.events(team).await.unwrap(),
        [&e1, &e2, &e3, &e4, &e5, &e6].map(stored).to_vec(),
        "each write's events, in the order they were written"
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}
