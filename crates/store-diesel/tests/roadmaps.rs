//! Roadmaps, stages and topics on diesel: the statement counts of the lists and threads, and
//! checks of stages' counts, anonymous creators and the list's every sort and filter.
//! Behaviour through the ports lives in the port-contract suite (`tests/tests/port_contract`),
//! run on every store; checks here that still go through a port are not in it yet (to be moved
//! there). Each runs on SQLite and, when `SOUNDING_TEST_POSTGRES_URL` names a server, on a fresh
//! PostgreSQL database too.

mod support;

use std::collections::HashMap;

use serde_json::json;
use sounding_domain::{
    event::EventKind,
    feedback_comment::Direction,
    ids::{RoadmapId, SubscriberId, TeamId, TopicId},
    page::PageRequest,
    ports::{Conflict, OutboxStore, RoadmapStore, StoreError, SubscriberStore, TopicStore},
    roadmap::Roadmap,
    stage::Stage,
    timestamp::Timestamp,
    topic::{StageRef, Topic, TopicQuery, TopicSort, TopicView},
    topic_comment::{ThreadQuery, ThreadScope, TopicComment},
};
use sounding_store_diesel::DieselStore;
use sounding_tests::fixtures::{
    self, anonymous, at, event, stored_roadmap, stored_stage, stored_topic, subscriber, t0,
    thread_query, topic_comment, topic_query, topic_vote,
};
use support::{
    counted::{postgres, sqlite},
    on_every_engine, statements_of, team, Env,
};

on_every_engine!(
    stages_count_their_published_topics_and_hide_private_ones,
    a_topic_round_trips_with_a_new_anonymous_creator,
    a_taken_url_id_writes_neither_topic_nor_creator,
    lists_sort_by_each_column_with_ties_by_id,
    lists_filter_by_roadmap_stage_and_publication_and_page,
    lists_and_threads_run_a_constant_number_of_statements,
    kept_topic_totals_follow_every_change_to_the_topics,
);

// ---------------------------------------------------------------------------------------------
// Fixtures (beyond the shared ones)

/// A private stage stored last in `roadmap`.
async fn private_stage(store: &DieselStore, roadmap: &Roadmap, name: &str) -> Stage {
    let mut stage = fixtures::stage(roadmap, name, t0());
    stage.meta.is_private = true;
    store.insert_stage(&stage, None).await.unwrap().unwrap()
}

/// A published topic on `stage` titled `title` (the lists here are compared by title), with a
/// fresh url id.
fn topic(stage: &Stage, creator: SubscriberId, title: &str, created_at: Timestamp) -> Topic {
    let url_id = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    Topic {
        title: title.into(),
        ..fixtures::topic(stage, creator, &url_id, created_at)
    }
}

async fn insert(store: &DieselStore, topic: &Topic) {
    stored_topic(store, topic.clone()).await;
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

async fn add_comment(store: &DieselStore, comment: &TopicComment) {
    assert!(store.insert_topic_comment(comment, &[]).await.unwrap());
}

async fn list(store: &DieselStore, team: TeamId, query: &TopicQuery) -> (Vec<String>, i64) {
    let page = store.list_topics(team, query).await.unwrap();
    assert_eq!(page.page, query.page);
    (
        page.items.into_iter().map(|v| v.topic.title).collect(),
        page.total,
    )
}

// ---------------------------------------------------------------------------------------------
// Stages

async fn stages_count_their_published_topics_and_hide_private_ones(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let jane = subscriber(store, a, "jane@example.com").await;
    let map = stored_roadmap(store, a, "Product").await;
    let open = stored_stage(store, &map, "Open").await;
    let hidden = private_stage(store, &map, "Hidden").await;
    let empty = stored_stage(store, &map, "Empty").await;
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

async fn a_topic_round_trips_with_a_new_anonymous_creator(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let map = stored_roadmap(store, a, "Product").await;
    stored_stage(store, &map, "First").await;
    let stage = stored_stage(store, &map, "Planned").await;
    let creator = anonymous(a, "Blue Happy Elephant", t0());

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
            &[event(a, EventKind::TopicsCreate, t0(), 0)],
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
    let map = stored_roadmap(store, a, "Product").await;
    let stage = stored_stage(store, &map, "Open").await;
    let first = topic(&stage, jane.id, "First", t0());
    insert(store, &first).await;

    let newcomer = anonymous(a, "Red Calm Owl", t0());
    let mut second = topic(&stage, newcomer.id, "Second", t0());
    second.url_id = first.url_id.clone();
    let err = store
        .insert_topic(
            &second,
            Some(newcomer.clone()),
            &[event(a, EventKind::TopicsCreate, t0(), 0)],
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
    let their_map = stored_roadmap(store, b, "Theirs").await;
    let their_stage = stored_stage(store, &their_map, "Open").await;
    let mut theirs = topic(&their_stage, SubscriberId::new(), "Theirs", t0());
    theirs.url_id = first.url_id.clone();
    insert(store, &theirs).await;
}

async fn lists_sort_by_each_column_with_ties_by_id(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let map = stored_roadmap(store, a, "Product").await;
    let stage = stored_stage(store, &map, "Open").await;
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
                .cast_topic_vote(a, &topic_vote(&t, SubscriberId::new(), t0()), &[])
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
    let map = stored_roadmap(store, a, "Product").await;
    let other_map = stored_roadmap(store, a, "Other").await;
    let s1 = stored_stage(store, &map, "One").await;
    let s2 = stored_stage(store, &map, "Two").await;
    let s3 = stored_stage(store, &other_map, "Three").await;
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
    let their_map = stored_roadmap(store, b, "Theirs").await;
    let theirs = stored_stage(store, &their_map, "Theirs").await;
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

async fn lists_and_threads_run_a_constant_number_of_statements(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let map = stored_roadmap(store, a, "Product").await;
    let stages = [
        stored_stage(store, &map, "One").await,
        stored_stage(store, &map, "Two").await,
        stored_stage(store, &map, "Three").await,
    ];
    // Authors and topics of a thread page are read by primary key, without the team id.
    let mut by_key = Vec::new();
    for n in 0..30_i64 {
        let stage = &stages[(n % 3) as usize];
        let author = subscriber(store, a, &format!("s{n}@example.com")).await;
        let t = topic(stage, author.id, &format!("t{n}"), t0().plus_seconds(n));
        insert(store, &t).await;
        by_key.extend([author.id.to_string(), t.id.to_string()]);
        let root = topic_comment(&t, author.id, None, "root", t0().plus_seconds(n));
        add_comment(store, &root).await;
        let reply = topic_comment(&t, SubscriberId::new(), Some(&root), "reply", t0());
        add_comment(store, &reply).await;
        add_comment(
            store,
            &topic_comment(&t, author.id, Some(&reply), "deeper", t0()),
        )
        .await;
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

/// The topic list's total and the stages' `topic_count` are read from `topic_counts`, which
/// triggers keep. After each kind of change (new topics, publishing, a move between stages, a
/// delete, a roadmap deleted with its topics), every kept total must equal the topics really
/// there, counted here with `COUNT(*)`.
async fn kept_topic_totals_follow_every_change_to_the_topics(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let jane = subscriber(store, a, "jane@example.com").await;
    let bob = subscriber(store, b, "bob@example.com").await;
    let map = stored_roadmap(store, a, "Product").await;
    let (s1, s2) = (
        stored_stage(store, &map, "One").await,
        stored_stage(store, &map, "Two").await,
    );
    let other_map = stored_roadmap(store, a, "Other").await;
    let s3 = stored_stage(store, &other_map, "Three").await;
    let theirs = stored_roadmap(store, b, "Theirs").await;
    let s4 = stored_stage(store, &theirs, "Four").await;
    let check = || async {
        let mut filters = vec![(None, None)];
        for roadmap in [&map, &other_map] {
            filters.push((Some(roadmap.id), None));
        }
        for stage in [&s1, &s2, &s3] {
            filters.push((Some(stage.roadmap_id), Some(stage.id)));
            filters.push((None, Some(stage.id)));
        }
        for (roadmap, stage) in filters {
            for published_only in [false, true] {
                let mut q = topic_query(TopicSort::CreatedAt, Direction::Desc);
                (q.roadmap_id, q.stage_id, q.published_only) = (roadmap, stage, published_only);
                let kept = store.list_topics(a, &q).await.unwrap().total;
                let mut sql = format!("SELECT COUNT(*) AS n FROM topics WHERE team_id = '{a}'");
                if let Some(roadmap) = roadmap {
                    sql += &format!(" AND roadmap_id = '{roadmap}'");
                }
                if let Some(stage) = stage {
                    sql += &format!(" AND stage_id = '{stage}'");
                }
                if published_only {
                    sql += " AND published_at IS NOT NULL";
                }
                assert_eq!(
                    kept,
                    env.count(&sql),
                    "{roadmap:?} {stage:?} {published_only}"
                );
            }
        }
        for stage in [&s1, &s2, &s3] {
            let counted = env.count(&format!(
                "SELECT COUNT(*) AS n FROM topics \
                 WHERE stage_id = '{}' AND published_at IS NOT NULL",
                stage.id
            ));
            let one = store.stage(a, stage.id).await.unwrap().unwrap().topic_count;
            let all = store.stages(a, stage.roadmap_id, true).await.unwrap();
            let listed = all.iter().find(|v| v.stage.id == stage.id).unwrap();
            assert_eq!(
                (one, listed.topic_count),
                (counted, counted),
                "{}",
                stage.name
            );
        }
    };
    let mut topics = Vec::new();
    for (stage, title, published) in [
        (&s1, "a", true),
        (&s1, "b", true),
        (&s1, "c", false),
        (&s2, "d", true),
        (&s3, "e", true),
    ] {
        let mut t = topic(stage, jane.id, title, t0());
        if !published {
            t.published_at = None;
        }
        insert(store, &t).await;
        topics.push(t);
    }
    insert(store, &topic(&s4, bob.id, "theirs", t0())).await;
    check().await;
    let total = |published_only: bool| async move {
        let mut q = topic_query(TopicSort::CreatedAt, Direction::Desc);
        q.published_only = published_only;
        store.list_topics(a, &q).await.unwrap().total
    };
    assert_eq!((total(false).await, total(true).await), (5, 4));

    let edit = |id: TopicId, change: fn(&mut TopicView, &Stage), to: Stage| async move {
        store
            .edit_topic(
                a,
                id,
                Box::new(move |view: &mut TopicView| {
                    change(view, &to);
                    Ok(Vec::new())
                }),
            )
            .await
            .unwrap();
    };
    // Published, moved to another stage, renamed (nothing moves), deleted.
    edit(
        topics[2].id,
        |v, _| v.topic.published_at = Some(t0()),
        s1.clone(),
    )
    .await;
    check().await;
    assert_eq!(total(true).await, 5);
    edit(topics[0].id, |v, to| v.topic.stage_id = to.id, s2.clone()).await;
    check().await;
    edit(
        topics[1].id,
        |v, _| v.topic.title = "renamed".into(),
        s1.clone(),
    )
    .await;
    check().await;
    assert!(store.delete_topic(a, topics[3].id, &[]).await.unwrap());
    check().await;
    assert_eq!(total(false).await, 4);
    // A roadmap deleted with its topics takes them out of the team's total.
    assert!(store.delete_roadmap(a, other_map.id, true).await.unwrap());
    assert_eq!(total(false).await, 3);
    assert_eq!(
        store
            .list_topics(b, &topic_query(TopicSort::CreatedAt, Direction::Desc))
            .await
            .unwrap()
            .total,
        1,
        "another team's topics are its own"
    );
}
