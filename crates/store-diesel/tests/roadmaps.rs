//! Roadmaps, stages and topics on diesel: gapless stage orders (also under concurrent
//! inserts), refused and forced deletions, topics with anonymous creators, the list's orders,
//! votes, visits, threaded comments and follows, and the statement counts of the lists. Every
//! check runs on SQLite (a temporary file) and, when `SOUNDING_TEST_POSTGRES_URL` names a
//! server whose user may create databases, on a fresh PostgreSQL database too.

mod support;

use sounding_tests::overwrite::Overwrite;
use std::collections::HashMap;

use diesel::connection::set_default_instrumentation;
use serde_json::json;
use sounding_domain::{
    event::{EventKind, NewEvent},
    feedback_comment::{CommentSort, Direction},
    ids::{RoadmapId, StageId, SubscriberId, TeamId, TopicCommentId, TopicId, TopicVoteId},
    page::PageRequest,
    ports::{Conflict, OutboxStore, RoadmapStore, StoreError, SubscriberStore, TopicStore},
    roadmap::{Roadmap, RoadmapPatch},
    stage::{Stage, StageMeta},
    subscriber::{Identify, Subscriber, SubscriberSource},
    timestamp::Timestamp,
    topic::{StageRef, Topic, TopicQuery, TopicSort, TopicView},
    topic_comment::{CommentSource, CommentThread, ThreadQuery, ThreadScope, TopicComment},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
};
use sounding_store_diesel::DieselStore;
use support::{at, on_every_engine, statement_counter, statements_of, t0, team, Env};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Backends

/// The shared store, with the statement counter installed before it connects.
async fn migrated(url: String, dir: Option<TempDir>) -> Env {
    // Before any connection opens, so the store's connections all report their statements.
    set_default_instrumentation(statement_counter).unwrap();
    support::migrated(url, dir).await
}

async fn sqlite() -> Option<Env> {
    let (url, dir) = support::sqlite_database();
    Some(migrated(url, Some(dir)).await)
}

async fn postgres() -> Option<Env> {
    let url = support::postgres_database().await?;
    Some(migrated(url, None).await)
}

on_every_engine!(
    stage_orders_stay_gapless_through_inserts_moves_and_deletes,
    concurrent_stage_inserts_get_distinct_orders,
    stages_count_their_published_topics_and_hide_private_ones,
    deleting_a_stage_with_topics_is_refused_unless_forced,
    deleting_a_roadmap_with_topics_is_refused_unless_forced,
    roadmaps_read_update_and_stay_in_their_team,
    a_topic_round_trips_with_a_new_anonymous_creator,
    a_taken_url_id_writes_neither_topic_nor_creator,
    updates_save_everything_but_counts_and_visits,
    deleting_a_topic_removes_its_comments_votes_follows_and_visits,
    lists_sort_by_each_column_with_ties_by_id,
    lists_filter_by_roadmap_stage_and_publication_and_page,
    thirty_concurrent_topic_votes_all_count,
    a_second_topic_vote_is_refused_and_writes_nothing,
    visits_count_once_per_viewer_per_window,
    concurrent_first_views_by_one_viewer_count_once,
    threads_list_every_reply_under_its_root_oldest_first,
    public_threads_hide_private_stages_and_unpublished_topics,
    topic_follows_are_idempotent_and_in_order,
    lists_and_threads_run_a_constant_number_of_statements,
);

// ---------------------------------------------------------------------------------------------
// Fixtures

async fn subscriber(store: &DieselStore, team: TeamId, email: &str) -> Subscriber {
    let input = Identify::new(Some(email), None, None, None, None).unwrap();
    store.identify(team, &input, t0()).await.unwrap().0
}

fn anonymous(team: TeamId, name: &str) -> Subscriber {
    Subscriber {
        id: SubscriberId::new(),
        team_id: team,
        name: name.into(),
        email: None,
        source: SubscriberSource::Widget,
        meta: Default::default(),
        attributes: Default::default(),
        avatar_url: None,
        token_version: 0,
        created_at: t0(),
        last_updated: t0(),
    }
}

async fn roadmap(store: &DieselStore, team: TeamId, name: &str) -> Roadmap {
    let roadmap = Roadmap::new(team, Some(name), Some("what comes next"), false, t0()).unwrap();
    store.insert_roadmap(&roadmap, &[]).await.unwrap();
    roadmap
}

fn new_stage(roadmap: &Roadmap, name: &str) -> Stage {
    Stage {
        id: StageId::new(),
        team_id: roadmap.team_id,
        roadmap_id: roadmap.id,
        name: name.into(),
        order: 0,
        meta: StageMeta::default(),
        created_at: t0(),
        updated_at: t0(),
    }
}

/// A stage added at `position`, as stored.
async fn stage_at(
    store: &DieselStore,
    roadmap: &Roadmap,
    name: &str,
    position: Option<i64>,
) -> Stage {
    store
        .insert_stage(&new_stage(roadmap, name), position)
        .await
        .unwrap()
        .expect("the roadmap exists")
}

async fn private_stage(store: &DieselStore, roadmap: &Roadmap, name: &str) -> Stage {
    let mut stage = new_stage(roadmap, name);
    stage.meta.is_private = true;
    store.insert_stage(&stage, None).await.unwrap().unwrap()
}

/// The roadmap's stage names in order, each with its order (private ones included).
async fn stage_names(store: &DieselStore, roadmap: &Roadmap) -> Vec<(String, i64)> {
    store
        .stages(roadmap.team_id, roadmap.id, true)
        .await
        .unwrap()
        .into_iter()
        .map(|v| (v.stage.name, v.stage.order))
        .collect()
}

fn numbered(names: &[&str]) -> Vec<(String, i64)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| ((*n).to_owned(), i as i64 + 1))
        .collect()
}

/// A published topic on `stage` with a fresh url id, created at `created_at`.
fn topic(stage: &Stage, creator: SubscriberId, title: &str, created_at: Timestamp) -> Topic {
    Topic {
        id: TopicId::new(),
        team_id: stage.team_id,
        roadmap_id: stage.roadmap_id,
        stage_id: stage.id,
        url_id: uuid::Uuid::new_v4().simple().to_string()[..10].to_owned(),
        title: title.into(),
        description: format!("about {title}"),
        text: String::new(),
        subscriber_id: creator,
        meta: Default::default(),
        visits: 0,
        published_at: Some(created_at),
        created_at,
        updated_at: created_at,
    }
}

async fn insert(store: &DieselStore, topic: &Topic) {
    store.insert_topic(topic, None, &[]).await.unwrap();
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

fn vote(topic: TopicId, creator: SubscriberId) -> TopicVote {
    TopicVote {
        id: TopicVoteId::new(),
        topic_id: topic,
        creator_id: creator,
        created_at: t0(),
    }
}

fn comment(
    topic: &Topic,
    author: SubscriberId,
    parent: Option<&TopicComment>,
    text: &str,
    created_at: Timestamp,
) -> TopicComment {
    let id = TopicCommentId::new();
    TopicComment {
        id,
        team_id: topic.team_id,
        topic_id: topic.id,
        creator_id: author,
        parent_id: parent.map(|p| p.id),
        root_id: parent.map_or(id, |p| p.root_id),
        text: text.into(),
        source: CommentSource::Widget,
        created_at,
        updated_at: created_at,
        deleted_at: None,
    }
}

async fn add_comment(store: &DieselStore, comment: &TopicComment) {
    assert!(store.insert_topic_comment(comment, &[]).await.unwrap());
}

fn topic_query(sort: TopicSort, direction: Direction) -> TopicQuery {
    TopicQuery {
        roadmap_id: None,
        stage_id: None,
        published_only: false,
        sort,
        direction,
        page: PageRequest {
            limit: 100,
            offset: 0,
        },
    }
}

async fn list(store: &DieselStore, team: TeamId, query: &TopicQuery) -> (Vec<String>, i64) {
    let page = store.list_topics(team, query).await.unwrap();
    assert_eq!(page.page, query.page);
    (
        page.items.into_iter().map(|v| v.topic.title).collect(),
        page.total,
    )
}

fn thread_query(topic: Option<TopicId>, scope: ThreadScope) -> ThreadQuery {
    ThreadQuery {
        topic,
        scope,
        sort: CommentSort::CreatedAt,
        direction: Direction::Asc,
        page: PageRequest {
            limit: 100,
            offset: 0,
        },
    }
}

/// Each thread as its root's text and its replies' texts.
fn thread_texts(threads: &[CommentThread]) -> Vec<(String, Vec<String>)> {
    threads
        .iter()
        .map(|t| {
            (
                t.root.comment.text.clone(),
                t.replies.iter().map(|r| r.comment.text.clone()).collect(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Stages

async fn stage_orders_stay_gapless_through_inserts_moves_and_deletes(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let map = roadmap(store, a, "Product").await;

    let first = stage_at(store, &map, "A", None).await;
    assert_eq!(first.order, 1);
    assert_eq!(stage_at(store, &map, "B", None).await.order, 2);
    let c = stage_at(store, &map, "C", Some(1)).await;
    assert_eq!(c.order, 1);
    assert_eq!(
        stage_at(store, &map, "D", Some(99)).await.order,
        4,
        "clamped"
    );
    let e = stage_at(store, &map, "E", Some(3)).await;
    assert_eq!(e.order, 3);
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["C", "A", "E", "B", "D"])
    );

    // A move renumbers the rest; a rename without a position keeps the place.
    let mut moved = e.clone();
    moved.name = "E moved".into();
    moved.meta.color = Some("#ABCDEF".into());
    moved.updated_at = at("2026-03-05T00:00:00Z");
    let stored = store.save_stage(&moved, Some(5)).await.unwrap().unwrap();
    assert_eq!(
        stored,
        Stage {
            order: 5,
            ..moved.clone()
        }
    );
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["C", "A", "B", "D", "E moved"])
    );
    let mut renamed = first.clone();
    renamed.name = "A renamed".into();
    let stored = store.save_stage(&renamed, None).await.unwrap().unwrap();
    assert_eq!(stored.order, 2, "kept its place");
    let stored = store.save_stage(&c, Some(1)).await.unwrap().unwrap();
    assert_eq!(stored.order, 1, "a move to where it is changes nothing");
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["C", "A renamed", "B", "D", "E moved"])
    );

    // A delete closes the gap.
    assert!(store.delete_stage(a, first.id, false).await.unwrap());
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["C", "B", "D", "E moved"])
    );
    assert!(store.delete_stage(a, c.id, false).await.unwrap());
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["B", "D", "E moved"])
    );
    assert!(!store.delete_stage(a, c.id, false).await.unwrap(), "gone");

    // Missing or another team's: nothing written.
    let elsewhere = Roadmap {
        id: RoadmapId::new(),
        ..map.clone()
    };
    assert_eq!(
        store
            .insert_stage(&new_stage(&elsewhere, "X"), None)
            .await
            .unwrap(),
        None
    );
    let mut foreign = new_stage(&map, "X");
    foreign.team_id = b;
    assert_eq!(store.insert_stage(&foreign, None).await.unwrap(), None);
    assert_eq!(store.save_stage(&foreign, Some(1)).await.unwrap(), None);
    assert_eq!(store.save_stage(&first, Some(1)).await.unwrap(), None);
    assert!(store.stage(b, stored.id).await.unwrap().is_none());
    assert!(!store.delete_stage(b, moved.id, true).await.unwrap());
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM stages"), 3);
}

async fn concurrent_stage_inserts_get_distinct_orders(env: Env) {
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let map = roadmap(&store, a, "Product").await;
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let (store, map) = (store.clone(), map.clone());
            tokio::spawn(async move {
                // Half append, half go first: every insert renumbers.
                let position = (n % 2 == 0).then_some(1);
                stage_at(&store, &map, &format!("S{n}"), position).await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let orders: Vec<i64> = stage_names(&store, &map)
        .await
        .into_iter()
        .map(|(_, order)| order)
        .collect();
    assert_eq!(orders, (1..=20).collect::<Vec<i64>>());
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(DISTINCT position) AS n FROM stages WHERE roadmap_id = '{}' \
             AND position BETWEEN 1 AND 20",
            map.id
        )),
        20
    );
}

async fn stages_count_their_published_topics_and_hide_private_ones(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let open = stage_at(store, &map, "Open", None).await;
    let hidden = private_stage(store, &map, "Hidden").await;
    let empty = stage_at(store, &map, "Empty", None).await;
    for n in 0..3 {
        insert(store, &topic(&open, jane.id, &format!("t{n}"), t0())).await;
    }
    let mut pending = topic(&open, jane.id, "pending", t0());
    pending.published_at = None;
    insert(store, &pending).await;
    insert(store, &topic(&hidden, jane.id, "secret", t0())).await;

    let counts = |views: Vec<sounding_domain::stage::StageView>| {
        views
            .into_iter()
            .map(|v| (v.stage.name, v.topic_count))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        counts(store.stages(a, map.id, true).await.unwrap()),
        vec![
            ("Open".to_owned(), 3),
            ("Hidden".to_owned(), 1),
            ("Empty".to_owned(), 0)
        ]
    );
    assert_eq!(
        counts(store.stages(a, map.id, false).await.unwrap()),
        vec![("Open".to_owned(), 3), ("Empty".to_owned(), 0)]
    );
    let view = store.stage(a, open.id).await.unwrap().unwrap();
    assert_eq!((view.stage, view.topic_count), (open, 3));
    let view = store.stage(a, hidden.id).await.unwrap().unwrap();
    assert!(view.stage.meta.is_private);
    assert_eq!(
        store.stage(a, empty.id).await.unwrap().unwrap().topic_count,
        0
    );
    assert!(store
        .stages(a, RoadmapId::new(), true)
        .await
        .unwrap()
        .is_empty());
}

/// A topic on `stage` with a comment, a vote, follows and a visit; returns it.
async fn busy_topic(store: &DieselStore, stage: &Stage, author: SubscriberId) -> Topic {
    let mut t = topic(stage, author, "busy", t0());
    t.published_at = None;
    insert(store, &t).await;
    add_comment(store, &comment(&t, author, None, "hi", t0())).await;
    store
        .cast_topic_vote(t.team_id, &vote(t.id, author), &[])
        .await
        .unwrap();
    store
        .record_topic_visit(t.team_id, t.id, "viewer", t0(), 120)
        .await
        .unwrap();
    t
}

async fn deleting_a_stage_with_topics_is_refused_unless_forced(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let first = stage_at(store, &map, "First", None).await;
    let full = stage_at(store, &map, "Full", None).await;
    stage_at(store, &map, "Last", None).await;
    let other = stage_at(store, &map, "Other", None).await;
    let busy = busy_topic(store, &full, jane.id).await;
    let kept = topic(&other, jane.id, "kept", t0());
    insert(store, &kept).await;

    // Even an unpublished topic keeps the stage.
    assert_eq!(
        store.delete_stage(a, full.id, false).await.unwrap_err(),
        StoreError::Conflict(Conflict::StageNotEmpty)
    );
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["First", "Full", "Last", "Other"])
    );
    assert!(store.topic(a, busy.id).await.unwrap().is_some());

    assert!(store.delete_stage(a, full.id, true).await.unwrap());
    assert_eq!(
        stage_names(store, &map).await,
        numbered(&["First", "Last", "Other"])
    );
    assert!(store.topic(a, busy.id).await.unwrap().is_none());
    for table in [
        "topic_comments",
        "topic_votes",
        "topic_visits",
        "topic_follows",
    ] {
        assert_eq!(
            env.count(&format!(
                "SELECT COUNT(*) AS n FROM {table} WHERE topic_id = '{}'",
                busy.id
            )),
            0,
            "{table}"
        );
    }
    assert!(store.topic(a, kept.id).await.unwrap().is_some());
    assert_eq!(
        store.topic_followers(a, kept.id).await.unwrap(),
        vec![jane.id]
    );
    // An empty stage goes without force.
    assert!(store.delete_stage(a, first.id, false).await.unwrap());
}

async fn deleting_a_roadmap_with_topics_is_refused_unless_forced(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let other_map = roadmap(store, a, "Other").await;
    let s1 = stage_at(store, &map, "One", None).await;
    stage_at(store, &map, "Two", None).await;
    let busy = busy_topic(store, &s1, jane.id).await;
    let elsewhere = stage_at(store, &other_map, "Elsewhere", None).await;
    let kept = topic(&elsewhere, jane.id, "kept", t0());
    insert(store, &kept).await;

    assert_eq!(
        store.delete_roadmap(a, map.id, false).await.unwrap_err(),
        StoreError::Conflict(Conflict::RoadmapNotEmpty)
    );
    assert_eq!(stage_names(store, &map).await.len(), 2);
    assert!(store.topic(a, busy.id).await.unwrap().is_some());

    assert!(store.delete_roadmap(a, map.id, true).await.unwrap());
    assert!(store.roadmap(a, map.id).await.unwrap().is_none());
    assert!(store.stages(a, map.id, true).await.unwrap().is_empty());
    assert!(store.topic(a, busy.id).await.unwrap().is_none());
    for table in [
        "topic_comments",
        "topic_votes",
        "topic_visits",
        "topic_follows",
    ] {
        assert_eq!(
            env.count(&format!(
                "SELECT COUNT(*) AS n FROM {table} WHERE topic_id = '{}'",
                busy.id
            )),
            0,
            "{table}"
        );
    }
    assert!(
        !store.delete_roadmap(a, map.id, true).await.unwrap(),
        "gone"
    );
    assert!(store.topic(a, kept.id).await.unwrap().is_some());

    // Without topics, stages do not keep a roadmap.
    let bare = roadmap(store, a, "Bare").await;
    stage_at(store, &bare, "Only", None).await;
    assert!(store.delete_roadmap(a, bare.id, false).await.unwrap());
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM stages WHERE roadmap_id = '{}'",
            bare.id
        )),
        0
    );
}

async fn roadmaps_read_update_and_stay_in_their_team(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let mut first =
        Roadmap::new(a, Some("First"), None, false, at("2026-01-01T00:00:00Z")).unwrap();
    let second = Roadmap::new(
        a,
        Some("Second"),
        Some("d"),
        false,
        at("2026-01-02T00:00:00Z"),
    )
    .unwrap();
    store.insert_roadmap(&second, &[]).await.unwrap();
    store.insert_roadmap(&first, &[]).await.unwrap();
    roadmap(store, b, "Theirs").await;

    assert_eq!(
        store.roadmaps(a).await.unwrap(),
        vec![first.clone(), second.clone()],
        "oldest first"
    );
    first.apply(
        RoadmapPatch::new(Some("Renamed"), Some("now with words")).unwrap(),
        at("2026-02-01T00:00:00.5Z"),
    );
    assert!(store.save_roadmap(&first).await.unwrap());
    assert_eq!(
        store.roadmap(a, first.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(store.roadmap(b, first.id).await.unwrap(), None);
    let foreign = Roadmap {
        team_id: b,
        ..first.clone()
    };
    assert!(!store.save_roadmap(&foreign).await.unwrap());
    assert!(!store.delete_roadmap(b, first.id, true).await.unwrap());
    let missing = Roadmap {
        id: RoadmapId::new(),
        ..first.clone()
    };
    assert!(!store.save_roadmap(&missing).await.unwrap());
}

// ---------------------------------------------------------------------------------------------
// Topics

async fn a_topic_round_trips_with_a_new_anonymous_creator(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let map = roadmap(store, a, "Product").await;
    stage_at(store, &map, "First", None).await;
    let stage = stage_at(store, &map, "Planned", None).await;
    let creator = anonymous(a, "Blue Happy Elephant");

    let mut t = topic(
        &stage,
        creator.id,
        "Dark Mode",
        at("2026-03-04T05:06:07.123Z"),
    );
    t.text = "Please, for the NIGHT".into();
    t.meta = json!({"ctaLink": "https://x.io", "feedback": {"n": [1, 0.1]}})
        .as_object()
        .unwrap()
        .clone();
    t.visits = 42; // ignored: a new topic has none
    t.updated_at = at("2026-03-04T06:00:00.999Z");
    store
        .insert_topic(
            &t,
            Some(creator.clone()),
            &[event(a, EventKind::TopicsCreate)],
        )
        .await
        .unwrap();

    let expected = TopicView {
        topic: Topic {
            visits: 0,
            ..t.clone()
        },
        stage: StageRef {
            id: stage.id,
            name: "Planned".into(),
            order: 2,
            is_private: false,
        },
        vote_count: 0,
        comment_count: 0,
    };
    assert_eq!(store.topic(a, t.id).await.unwrap(), Some(expected.clone()));
    assert_eq!(
        store.topic_by_url_id(a, &t.url_id).await.unwrap(),
        Some(expected)
    );
    assert_eq!(store.topic(b, t.id).await.unwrap(), None);
    assert_eq!(store.topic_by_url_id(b, &t.url_id).await.unwrap(), None);
    assert_eq!(
        store.subscriber(a, creator.id).await.unwrap(),
        Some(creator.clone())
    );
    assert_eq!(
        store.topic_followers(a, t.id).await.unwrap(),
        vec![creator.id]
    );
    assert_eq!(events(store, a).await, vec!["topics.create"]);

    // A known creator: no subscriber written.
    let jane = subscriber(store, a, "jane@example.com").await;
    let subscribers = env.count("SELECT COUNT(*) AS n FROM subscribers");
    insert(store, &topic(&stage, jane.id, "Second", t0())).await;
    assert_eq!(
        env.count("SELECT COUNT(*) AS n FROM subscribers"),
        subscribers
    );
}

async fn a_taken_url_id_writes_neither_topic_nor_creator(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let first = topic(&stage, jane.id, "First", t0());
    insert(store, &first).await;

    let newcomer = anonymous(a, "Red Calm Owl");
    let mut second = topic(&stage, newcomer.id, "Second", t0());
    second.url_id = first.url_id.clone();
    let err = store
        .insert_topic(
            &second,
            Some(newcomer.clone()),
            &[event(a, EventKind::TopicsCreate)],
        )
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::Conflict(Conflict::TopicUrlId));
    assert_eq!(store.topic(a, second.id).await.unwrap(), None);
    assert_eq!(store.subscriber(a, newcomer.id).await.unwrap(), None);
    assert!(events(store, a).await.is_empty());
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM topic_follows WHERE topic_id = '{}'",
            second.id
        )),
        0
    );

    // Another team may use the same url id.
    let their_map = roadmap(store, b, "Theirs").await;
    let their_stage = stage_at(store, &their_map, "Open", None).await;
    let mut theirs = topic(&their_stage, SubscriberId::new(), "Theirs", t0());
    theirs.url_id = first.url_id.clone();
    insert(store, &theirs).await;
}

async fn updates_save_everything_but_counts_and_visits(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let other_map = roadmap(store, a, "Other").await;
    let open = stage_at(store, &map, "Open", None).await;
    let done = stage_at(store, &other_map, "Done", None).await;
    let mut t = topic(&open, jane.id, "Dark mode", t0());
    t.published_at = None;
    insert(store, &t).await;
    store
        .cast_topic_vote(a, &vote(t.id, jane.id), &[])
        .await
        .unwrap();
    add_comment(store, &comment(&t, jane.id, None, "yes", t0())).await;
    store
        .record_topic_visit(a, t.id, "v1", t0(), 120)
        .await
        .unwrap();

    let mut changed = t.clone();
    changed.roadmap_id = other_map.id;
    changed.stage_id = done.id;
    changed.url_id = "newurl0001".into();
    changed.title = "Night mode".into();
    changed.description = "darker".into();
    changed.text = "all of it".into();
    changed.meta = json!({"projectId": "p1"}).as_object().unwrap().clone();
    changed.published_at = Some(at("2026-03-05T00:00:00.001Z"));
    changed.updated_at = at("2026-03-05T00:00:00.002Z");
    changed.visits = 99;
    assert!(store
        .save_topic(&changed, &[event(a, EventKind::TopicsUpdate)])
        .await
        .unwrap());
    let view = store.topic(a, t.id).await.unwrap().unwrap();
    assert_eq!(
        view.topic,
        Topic {
            visits: 1,
            ..changed.clone()
        }
    );
    assert_eq!((view.vote_count, view.comment_count), (1, 1));
    assert_eq!(view.stage.name, "Done");
    assert_eq!(
        list(store, a, &topic_query(TopicSort::Title, Direction::Asc)).await,
        (vec!["Night mode".to_owned()], 1),
        "title_key follows the title"
    );

    let missing = Topic {
        id: TopicId::new(),
        ..changed
    };
    assert!(!store
        .save_topic(&missing, &[event(a, EventKind::TopicsUpdate)])
        .await
        .unwrap());
    assert_eq!(events(store, a).await, vec!["topics.update"]);
}

async fn deleting_a_topic_removes_its_comments_votes_follows_and_visits(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let doomed = busy_topic(store, &stage, jane.id).await;
    let kept = busy_topic(store, &stage, jane.id).await;

    assert!(!store
        .delete_topic(b, doomed.id, &[event(b, EventKind::TopicsUpdate)])
        .await
        .unwrap());
    assert!(events(store, b).await.is_empty());
    assert!(store
        .delete_topic(a, doomed.id, &[event(a, EventKind::TopicsUpdate)])
        .await
        .unwrap());
    assert!(!store
        .delete_topic(a, doomed.id, &[event(a, EventKind::TopicsUpdate)])
        .await
        .unwrap());
    assert_eq!(events(store, a).await, vec!["topics.update"], "only once");
    for table in [
        "topic_comments",
        "topic_votes",
        "topic_visits",
        "topic_follows",
    ] {
        assert_eq!(
            env.count(&format!("SELECT COUNT(*) AS n FROM {table}")),
            1,
            "{table}: only the kept topic's row"
        );
    }
    assert!(store.topic(a, kept.id).await.unwrap().is_some());
}

// ---------------------------------------------------------------------------------------------
// The list

async fn lists_sort_by_each_column_with_ties_by_id(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let base = at("2026-03-01T00:00:00Z");
    // Title keys: "banana", "apple", "cherry", "apple", "éclair" (after every ASCII letter,
    // bytewise), "zebra". Each title gets its own id, creation time and votes.
    let specs: [(&str, i64, i64, i64); 6] = [
        // (title, created +s, updated +s, votes)
        ("banana", 10, 100, 2),
        ("Apple", 20, 100, 0),
        ("cherry", 30, 50, 2),
        ("apple", 40, 300, 1),
        ("Éclair", 50, 200, 0),
        ("Zebra", 60, 100, 3),
    ];
    let mut ids: HashMap<String, TopicId> = HashMap::new();
    for (title, created, updated, votes) in specs {
        let mut t = topic(
            &stage,
            SubscriberId::new(),
            title,
            base.plus_seconds(created),
        );
        t.updated_at = base.plus_seconds(updated);
        insert(store, &t).await;
        for _ in 0..votes {
            store
                .cast_topic_vote(a, &vote(t.id, SubscriberId::new()), &[])
                .await
                .unwrap();
        }
        ids.insert(title.to_owned(), t.id);
    }
    // `a` before `b` when the sort key ties and the direction is ascending.
    let by_id = |x: &'static str, y: &'static str| {
        if ids[x].to_string() < ids[y].to_string() {
            [x, y]
        } else {
            [y, x]
        }
    };
    let concat = |parts: &[&[&str]]| -> Vec<String> {
        parts.concat().into_iter().map(str::to_owned).collect()
    };
    let reversed = |v: &[String]| -> Vec<String> { v.iter().rev().cloned().collect() };

    let created = concat(&[&["banana", "Apple", "cherry", "apple", "Éclair", "Zebra"]]);
    let updated = concat(&[
        &["cherry"],
        &{
            let mut tied = ["banana", "Apple", "Zebra"];
            tied.sort_by_key(|t| ids[*t].to_string());
            tied
        },
        &["Éclair", "apple"],
    ]);
    let titles = concat(&[
        &by_id("Apple", "apple"),
        &["banana", "cherry", "Zebra", "Éclair"],
    ]);
    let votes = concat(&[
        &by_id("Apple", "Éclair"),
        &["apple"],
        &by_id("banana", "cherry"),
        &["Zebra"],
    ]);
    for (sort, asc) in [
        (TopicSort::CreatedAt, created),
        (TopicSort::UpdatedAt, updated),
        (TopicSort::Title, titles),
        (TopicSort::VoteCount, votes),
    ] {
        assert_eq!(
            list(store, a, &topic_query(sort, Direction::Asc)).await,
            (asc.clone(), 6),
            "{sort:?} ascending"
        );
        assert_eq!(
            list(store, a, &topic_query(sort, Direction::Desc)).await,
            (reversed(&asc), 6),
            "{sort:?} descending: ties by id descending too"
        );
    }
}

async fn lists_filter_by_roadmap_stage_and_publication_and_page(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let map = roadmap(store, a, "Product").await;
    let other_map = roadmap(store, a, "Other").await;
    let s1 = stage_at(store, &map, "One", None).await;
    let s2 = stage_at(store, &map, "Two", None).await;
    let s3 = stage_at(store, &other_map, "Three", None).await;
    let base = at("2026-03-01T00:00:00Z");
    let creator = SubscriberId::new();
    for (n, stage, published) in [
        (1, &s1, true),
        (2, &s1, false),
        (3, &s2, true),
        (4, &s3, true),
        (5, &s3, false),
    ] {
        let mut t = topic(stage, creator, &format!("t{n}"), base.plus_seconds(n));
        if !published {
            t.published_at = None;
        }
        insert(store, &t).await;
    }
    let their_map = roadmap(store, b, "Theirs").await;
    let theirs = stage_at(store, &their_map, "Theirs", None).await;
    insert(store, &topic(&theirs, creator, "theirs", base)).await;

    let q = topic_query(TopicSort::CreatedAt, Direction::Asc);
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        list(store, a, &q).await,
        (names(&["t1", "t2", "t3", "t4", "t5"]), 5)
    );
    let published = TopicQuery {
        published_only: true,
        ..q
    };
    assert_eq!(
        list(store, a, &published).await,
        (names(&["t1", "t3", "t4"]), 3)
    );
    let in_map = TopicQuery {
        roadmap_id: Some(map.id),
        ..q
    };
    assert_eq!(
        list(store, a, &in_map).await,
        (names(&["t1", "t2", "t3"]), 3)
    );
    let in_stage = TopicQuery {
        stage_id: Some(s3.id),
        published_only: true,
        ..q
    };
    assert_eq!(list(store, a, &in_stage).await, (names(&["t4"]), 1));
    let page = TopicQuery {
        page: PageRequest {
            limit: 2,
            offset: 1,
        },
        ..q
    };
    assert_eq!(list(store, a, &page).await, (names(&["t2", "t3"]), 5));
    let past_the_end = TopicQuery {
        page: PageRequest {
            limit: 2,
            offset: 5,
        },
        ..q
    };
    assert_eq!(list(store, a, &past_the_end).await, (Vec::new(), 5));

    let views = store.list_topics(a, &in_map).await.unwrap().items;
    let stages: Vec<(&str, i64)> = views
        .iter()
        .map(|v| (v.stage.name.as_str(), v.stage.order))
        .collect();
    assert_eq!(stages, vec![("One", 1), ("One", 1), ("Two", 2)]);
}

// ---------------------------------------------------------------------------------------------
// Votes and visits

async fn thirty_concurrent_topic_votes_all_count(env: Env) {
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let map = roadmap(&store, a, "Product").await;
    let stage = stage_at(&store, &map, "Open", None).await;
    let t = topic(&stage, SubscriberId::new(), "Popular", t0());
    insert(&store, &t).await;

    let tasks: Vec<_> = (0..30)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let outcome = store
                    .cast_topic_vote(
                        a,
                        &vote(t.id, SubscriberId::new()),
                        &[event(a, EventKind::TopicVotesCreate)],
                    )
                    .await
                    .unwrap();
                match outcome {
                    TopicVoteOutcome::Cast { vote_count, .. } => vote_count,
                    other => panic!("{other:?}"),
                }
            })
        })
        .collect();
    let mut counts = Vec::new();
    for task in tasks {
        counts.push(task.await.unwrap());
    }
    counts.sort_unstable();
    assert_eq!(
        counts,
        (1..=30).collect::<Vec<i64>>(),
        "each told its own total"
    );
    let view = store.topic(a, t.id).await.unwrap().unwrap();
    assert_eq!(view.vote_count, 30);
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM topic_votes"), 30);
    assert_eq!(events(&store, a).await.len(), 30);
}

async fn a_second_topic_vote_is_refused_and_writes_nothing(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let t = topic(&stage, jane.id, "Dark mode", t0());
    insert(store, &t).await;

    assert_eq!(
        store
            .topic_vote_state(a, t.id, Some(jane.id))
            .await
            .unwrap(),
        Some(TopicVoteState {
            count: 0,
            voted: false
        })
    );
    let first = vote(t.id, jane.id);
    assert_eq!(
        store
            .cast_topic_vote(a, &first, &[event(a, EventKind::TopicVotesCreate)])
            .await
            .unwrap(),
        TopicVoteOutcome::Cast {
            vote: first.clone(),
            vote_count: 1
        }
    );
    assert_eq!(
        store
            .cast_topic_vote(
                a,
                &vote(t.id, jane.id),
                &[event(a, EventKind::TopicVotesCreate)]
            )
            .await
            .unwrap(),
        TopicVoteOutcome::AlreadyVoted
    );
    assert_eq!(events(store, a).await, vec!["topic-votes.create"]);
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM topic_votes"), 1);
    assert_eq!(
        store
            .topic_vote_state(a, t.id, Some(jane.id))
            .await
            .unwrap(),
        Some(TopicVoteState {
            count: 1,
            voted: true
        })
    );
    assert_eq!(
        store.topic_vote_state(a, t.id, None).await.unwrap(),
        Some(TopicVoteState {
            count: 1,
            voted: false
        })
    );
    assert_eq!(store.topic_vote_state(b, t.id, None).await.unwrap(), None);
    assert_eq!(
        store
            .cast_topic_vote(b, &vote(t.id, jane.id), &[])
            .await
            .unwrap(),
        TopicVoteOutcome::NotFound,
        "another team's topic is missing"
    );

    // Retracting twice counts once; a missing topic is None.
    assert_eq!(
        store.retract_topic_vote(a, t.id, jane.id).await.unwrap(),
        Some(0)
    );
    assert_eq!(
        store.retract_topic_vote(a, t.id, jane.id).await.unwrap(),
        Some(0)
    );
    assert_eq!(
        store
            .retract_topic_vote(a, TopicId::new(), jane.id)
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.topic(a, t.id).await.unwrap().unwrap().vote_count, 0);
}

async fn visits_count_once_per_viewer_per_window(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let t = topic(&stage, SubscriberId::new(), "Dark mode", t0());
    insert(store, &t).await;
    let visit = |viewer: &'static str, now: Timestamp| async move {
        store
            .record_topic_visit(a, t.id, viewer, now, 120)
            .await
            .unwrap()
    };

    assert_eq!(visit("alice", t0()).await, Some(1));
    assert_eq!(
        visit("alice", t0().plus_seconds(60)).await,
        Some(1),
        "within"
    );
    assert_eq!(visit("alice", t0().plus_seconds(119)).await, Some(1));
    assert_eq!(
        visit("bob", t0().plus_seconds(1)).await,
        Some(2),
        "another viewer"
    );
    assert_eq!(
        visit("alice", t0().plus_seconds(120)).await,
        Some(3),
        "the window is measured from the last view that counted"
    );
    assert_eq!(visit("alice", t0().plus_seconds(200)).await, Some(3));
    assert_eq!(visit("alice", t0().plus_seconds(241)).await, Some(4));
    assert_eq!(store.topic(a, t.id).await.unwrap().unwrap().topic.visits, 4);
    assert_eq!(
        store
            .record_topic_visit(b, t.id, "alice", t0(), 120)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .record_topic_visit(a, TopicId::new(), "alice", t0(), 120)
            .await
            .unwrap(),
        None
    );
}

async fn concurrent_first_views_by_one_viewer_count_once(env: Env) {
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let map = roadmap(&store, a, "Product").await;
    let stage = stage_at(&store, &map, "Open", None).await;
    let t = topic(&stage, SubscriberId::new(), "Dark mode", t0());
    insert(&store, &t).await;

    let tasks: Vec<_> = (0..10)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                // The same viewer ten times at once, and ten different viewers.
                let same = store
                    .record_topic_visit(a, t.id, "1.2.3.4", t0(), 120)
                    .await
                    .unwrap();
                let other = store
                    .record_topic_visit(a, t.id, &format!("viewer-{n}"), t0(), 120)
                    .await
                    .unwrap();
                (same, other)
            })
        })
        .collect();
    for task in tasks {
        let (same, other) = task.await.unwrap();
        assert!(same.is_some() && other.is_some());
    }
    assert_eq!(
        store.topic(a, t.id).await.unwrap().unwrap().topic.visits,
        11
    );
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM topic_visits"), 11);
}

// ---------------------------------------------------------------------------------------------
// Comments and follows

async fn threads_list_every_reply_under_its_root_oldest_first(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let bob = subscriber(store, a, "bob@example.com").await;
    let gone = SubscriberId::new(); // a deleted subscriber's comments keep no author
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let t1 = topic(&stage, jane.id, "Dark mode", t0());
    let t2 = topic(&stage, jane.id, "Light mode", t0());
    insert(store, &t1).await;
    insert(store, &t2).await;
    let s = |n: i64| t0().plus_seconds(n);

    let root1 = comment(&t1, jane.id, None, "root1", s(1));
    let root2 = comment(&t1, bob.id, None, "root2", s(2));
    let other = comment(&t2, bob.id, None, "other", s(3));
    let r1 = comment(&t1, bob.id, Some(&root1), "r1", s(4));
    let r11 = comment(&t1, gone, Some(&r1), "r1.1", s(5));
    let r111 = comment(&t1, jane.id, Some(&r11), "r1.1.1", s(6));
    let r2 = comment(&t1, jane.id, Some(&root1), "r2", s(7));
    let r21 = comment(&t1, bob.id, Some(&root2), "root2 reply", s(8));
    // Inserted out of time order (but each after its parent, which a reply needs): replies
    // are listed by time, not insertion.
    for c in [&root1, &root2, &other, &r1, &r2, &r11, &r111, &r21] {
        add_comment(store, c).await;
    }
    let ghost = topic(&stage, jane.id, "never inserted", t0());
    assert!(!store
        .insert_topic_comment(
            &comment(&ghost, jane.id, None, "x", s(9)),
            &[event(a, EventKind::TopicCommentsCreate)]
        )
        .await
        .unwrap());
    assert!(events(store, a).await.is_empty(), "nothing written");
    assert_eq!(
        store.topic(a, t1.id).await.unwrap().unwrap().comment_count,
        7
    );
    assert_eq!(
        store.topic_comment(a, r11.id).await.unwrap(),
        Some(r11.clone())
    );
    assert_eq!(store.topic_comment(b, r11.id).await.unwrap(), None);

    let page = store
        .comment_threads(a, &thread_query(Some(t1.id), ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(page.total, 2, "top-level comments only");
    assert_eq!(
        thread_texts(&page.items),
        vec![
            (
                "root1".to_owned(),
                vec!["r1".to_owned(), "r1.1".into(), "r1.1.1".into(), "r2".into()]
            ),
            ("root2".to_owned(), vec!["root2 reply".to_owned()]),
        ]
    );
    let root = &page.items[0];
    assert_eq!(root.root.comment, root1);
    assert_eq!(root.root.author.as_ref().map(|s| s.id), Some(jane.id));
    assert_eq!(root.root.topic.id, t1.id);
    assert_eq!(root.root.topic.title, "Dark mode");
    assert_eq!(root.root.topic.url_id, t1.url_id);
    assert_eq!(root.replies[1].comment, r11);
    assert_eq!(root.replies[1].author, None);
    assert_eq!(root.replies[0].author.as_ref().map(|s| s.id), Some(bob.id));

    // Every topic of the team, newest first, paged.
    let mut q = thread_query(None, ThreadScope::Team);
    q.direction = Direction::Desc;
    let page = store.comment_threads(a, &q).await.unwrap();
    assert_eq!(page.total, 3);
    let roots: Vec<&str> = page
        .items
        .iter()
        .map(|t| t.root.comment.text.as_str())
        .collect();
    assert_eq!(roots, vec!["other", "root2", "root1"]);
    assert_eq!(page.items[0].root.topic.title, "Light mode");
    q.page = PageRequest {
        limit: 1,
        offset: 1,
    };
    let page = store.comment_threads(a, &q).await.unwrap();
    assert_eq!(
        thread_texts(&page.items),
        vec![("root2".to_owned(), vec!["root2 reply".to_owned()])]
    );
    assert_eq!(page.total, 3);
    q.page.offset = 3;
    assert!(store.comment_threads(a, &q).await.unwrap().items.is_empty());
    assert_eq!(
        store
            .comment_threads(b, &thread_query(None, ThreadScope::Team))
            .await
            .unwrap()
            .total,
        0
    );
    // Comments follow.
    assert_eq!(
        store.topic_followers(a, t1.id).await.unwrap(),
        vec![jane.id, bob.id, gone]
    );
}

async fn public_threads_hide_private_stages_and_unpublished_topics(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let open = stage_at(store, &map, "Open", None).await;
    let hidden = private_stage(store, &map, "Hidden").await;
    let public = topic(&open, jane.id, "public", t0());
    let mut pending = topic(&open, jane.id, "pending", t0());
    pending.published_at = None;
    let private = topic(&hidden, jane.id, "private", t0());
    for (n, t) in [&public, &pending, &private].into_iter().enumerate() {
        insert(store, t).await;
        let root = comment(t, jane.id, None, &t.title, t0().plus_seconds(n as i64));
        add_comment(store, &root).await;
        add_comment(
            store,
            &comment(t, jane.id, Some(&root), "reply", t0().plus_seconds(10)),
        )
        .await;
    }
    let roots = |threads: &[CommentThread]| {
        threads
            .iter()
            .map(|t| t.root.comment.text.clone())
            .collect::<Vec<_>>()
    };
    let page = store
        .comment_threads(a, &thread_query(None, ThreadScope::Public))
        .await
        .unwrap();
    assert_eq!(
        (roots(&page.items), page.total),
        (vec!["public".to_owned()], 1)
    );
    assert_eq!(page.items[0].replies.len(), 1);
    let page = store
        .comment_threads(a, &thread_query(None, ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(
        (roots(&page.items), page.total),
        (
            vec!["public".to_owned(), "pending".into(), "private".into()],
            3
        )
    );
    for hidden_topic in [&pending, &private] {
        let page = store
            .comment_threads(a, &thread_query(Some(hidden_topic.id), ThreadScope::Public))
            .await
            .unwrap();
        assert_eq!((page.items.len(), page.total), (0, 0));
    }
}

async fn topic_follows_are_idempotent_and_in_order(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = roadmap(store, a, "Product").await;
    let stage = stage_at(store, &map, "Open", None).await;
    let t = topic(&stage, jane.id, "Dark mode", t0());
    insert(store, &t).await;
    let (x, y) = (SubscriberId::new(), SubscriberId::new());

    let later = t0().plus_seconds(10);
    assert!(store
        .set_topic_following(a, t.id, y, true, later)
        .await
        .unwrap());
    assert!(store
        .set_topic_following(a, t.id, x, true, later)
        .await
        .unwrap());
    // Again, later: keeps its start.
    assert!(store
        .set_topic_following(a, t.id, y, true, later.plus_seconds(5))
        .await
        .unwrap());
    let mut same_time = [x, y];
    same_time.sort_by_key(|s| s.to_string());
    assert_eq!(
        store.topic_followers(a, t.id).await.unwrap(),
        [vec![jane.id], same_time.to_vec()].concat()
    );
    assert!(store
        .set_topic_following(a, t.id, jane.id, false, later)
        .await
        .unwrap());
    assert!(store
        .set_topic_following(a, t.id, jane.id, false, later)
        .await
        .unwrap());
    assert_eq!(
        store.topic_followers(a, t.id).await.unwrap(),
        same_time.to_vec()
    );
    assert!(!store
        .set_topic_following(b, t.id, x, true, later)
        .await
        .unwrap());
    assert!(store.topic_followers(b, t.id).await.unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Statement counts

async fn lists_and_threads_run_a_constant_number_of_statements(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let map = roadmap(store, a, "Product").await;
    let stages = [
        stage_at(store, &map, "One", None).await,
        stage_at(store, &map, "Two", None).await,
        stage_at(store, &map, "Three", None).await,
    ];
    // Authors and topics of a thread page are read by primary key, without the team id.
    let mut by_key = Vec::new();
    for n in 0..30_i64 {
        let stage = &stages[(n % 3) as usize];
        let author = subscriber(store, a, &format!("s{n}@example.com")).await;
        let t = topic(stage, author.id, &format!("t{n}"), t0().plus_seconds(n));
        insert(store, &t).await;
        by_key.extend([author.id.to_string(), t.id.to_string()]);
        let root = comment(&t, author.id, None, "root", t0().plus_seconds(n));
        add_comment(store, &root).await;
        let reply = comment(&t, SubscriberId::new(), Some(&root), "reply", t0());
        add_comment(store, &reply).await;
        add_comment(store, &comment(&t, author.id, Some(&reply), "deeper", t0())).await;
    }
    let marker = a.to_string();
    let thread_markers: Vec<&str> = std::iter::once(marker.as_str())
        .chain(by_key.iter().map(String::as_str))
        .collect();
    for limit in [1, 10, 30] {
        let page = PageRequest { limit, offset: 0 };
        for sort in [TopicSort::Title, TopicSort::VoteCount] {
            let query = TopicQuery {
                page,
                published_only: true,
                ..topic_query(sort, Direction::Desc)
            };
            let (listed, statements) =
                statements_of(&[&marker], store.list_topics(a, &query)).await;
            let listed = listed.unwrap();
            assert_eq!((listed.items.len() as i64, listed.total), (limit, 30));
            assert_eq!(
                statements, 3,
                "count, page, stages ({sort:?}, limit {limit})"
            );
        }
        for scope in [ThreadScope::Public, ThreadScope::Team] {
            let query = ThreadQuery {
                page,
                ..thread_query(None, scope)
            };
            let (threads, statements) =
                statements_of(&thread_markers, store.comment_threads(a, &query)).await;
            let threads = threads.unwrap();
            assert_eq!((threads.items.len() as i64, threads.total), (limit, 30));
            assert!(threads.items.iter().all(|t| t.replies.len() == 2));
            assert_eq!(
                statements, 5,
                "count, roots, replies, authors, topics ({scope:?}, limit {limit})"
            );
        }
    }
}
