//! Roadmaps and their stages: listing, updates, orders kept 1, 2, 3… through inserts, moves
//! and deletes (also under concurrency), published-topic counts, and deletes refused while
//! topics remain unless forced.

use sounding_tests::overwrite::Overwrite;
use std::{collections::BTreeSet, sync::Arc};

use sounding_domain::{
    feedback_comment::Direction,
    ids::{RoadmapId, StageId, TopicId},
    ports::{Conflict, Store},
    roadmap::Roadmap,
    stage::{Stage, StageView},
    topic::{Topic, TopicSort},
    topic_comment::ThreadScope,
    topic_vote::TopicVoteState,
};
use uuid::Uuid;

use crate::{
    fixtures::{
        at, everything, roadmap, stage, stored_roadmap, stored_stage, stored_team, stored_topic,
        subscriber, t0, thread_query, topic, topic_comment, topic_query, topic_vote,
    },
    fixtures::{conflict, empty_page, topic_visit},
};

/// Stores a stage named `name` in `roadmap` at `position`; the stage as stored.
async fn put(store: &dyn Store, roadmap: &Roadmap, name: &str, position: Option<i64>) -> Stage {
    store
        .insert_stage(&stage(roadmap, name, t0()), position)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("stage {name} is inserted"))
}

/// The roadmap's stages (private ones too) as (name, order), in order.
async fn orders(store: &dyn Store, roadmap: &Roadmap) -> Vec<(String, i64)> {
    store
        .stages(roadmap.team_id, roadmap.id, true)
        .await
        .unwrap()
        .into_iter()
        .map(|v| (v.stage.name, v.stage.order))
        .collect()
}

/// `names` numbered 1, 2, 3…
fn numbered(names: &[&str]) -> Vec<(String, i64)> {
    names
        .iter()
        .zip(1..)
        .map(|(name, order)| ((*name).to_owned(), order))
        .collect()
}

/// Moves the stage to `position` without changing anything else; the stage as stored.
async fn move_to(store: &dyn Store, stage: &Stage, position: i64) -> Stage {
    store
        .save_stage(stage, Some(position))
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("stage {} is moved", stage.name))
}

async fn topic_exists(store: &dyn Store, topic: &Topic) -> bool {
    store
        .topic(topic.team_id, topic.id)
        .await
        .unwrap()
        .is_some()
}

pub async fn roadmaps_are_listed_oldest_first_and_updated_within_their_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let same = at("2026-03-05T00:00:00.000Z");
    let first = roadmap(team, "First ✨ «roadmap»", at("2026-03-04T00:00:00.001Z"));
    let mut tie_high = roadmap(team, "Tie high", same);
    tie_high.id = RoadmapId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let mut tie_low = roadmap(team, "Tie low", same);
    tie_low.id = RoadmapId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let later = roadmap(team, "Later", at("2026-03-06T00:00:00.000Z"));
    let foreign = roadmap(other, "Foreign", t0());
    for r in [&later, &tie_high, &foreign, &first, &tie_low] {
        store.insert_roadmap(r, &[]).await.unwrap();
    }

    assert_eq!(
        store.roadmaps(team).await.unwrap(),
        vec![
            first.clone(),
            tie_low.clone(),
            tie_high.clone(),
            later.clone()
        ],
        "oldest first, the id breaking the tie"
    );
    assert_eq!(store.roadmaps(other).await.unwrap(), vec![foreign.clone()]);
    assert_eq!(
        store.roadmap(team, first.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(store.roadmap(other, first.id).await.unwrap(), None);
    assert_eq!(store.roadmap(team, RoadmapId::new()).await.unwrap(), None);

    // Name, description and update time are saved.
    let mut changed = first.clone();
    changed.name = "Renamed — ÉCLAIR".into();
    changed.description = "New\ndescription".into();
    changed.updated_at = at("2026-03-07T01:02:03.456Z");
    assert!(store.save_roadmap(&changed).await.unwrap());
    assert_eq!(
        store.roadmap(team, first.id).await.unwrap(),
        Some(changed.clone())
    );
    let mut cleared = changed.clone();
    cleared.description = String::new();
    assert!(store.save_roadmap(&cleared).await.unwrap());
    assert_eq!(
        store.roadmap(team, first.id).await.unwrap(),
        Some(cleared.clone())
    );

    // A missing roadmap, or another team's, is not updated.
    let ghost = roadmap(team, "Ghost", t0());
    assert!(!store.save_roadmap(&ghost).await.unwrap());
    assert_eq!(store.roadmap(team, ghost.id).await.unwrap(), None);
    let mut hijack = cleared.clone();
    hijack.team_id = other;
    hijack.name = "Hijacked".into();
    assert!(!store.save_roadmap(&hijack).await.unwrap());
    assert_eq!(
        store.roadmap(team, first.id).await.unwrap(),
        Some(cleared.clone())
    );
    assert_eq!(store.roadmap(other, first.id).await.unwrap(), None);
    assert_eq!(
        store.roadmaps(team).await.unwrap(),
        vec![cleared, tie_low, tie_high, later]
    );
}

pub async fn stage_orders_stay_gapless_through_inserts_moves_and_deletes(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let product = stored_roadmap(&*store, team, "Product").await;
    let side = stored_roadmap(&*store, team, "Side").await;
    let foreign = stored_roadmap(&*store, other, "Foreign").await;

    // Inserts: last without a position, at a position, clamped past the end.
    let b_draft = stage(&product, "b", t0());
    let b = store.insert_stage(&b_draft, None).await.unwrap();
    assert_eq!(
        b,
        Some(Stage {
            order: 1,
            ..b_draft
        }),
        "the stage as stored, with its order"
    );
    let b = b.unwrap();
    let d = put(&*store, &product, "d", None).await;
    assert_eq!(d.order, 2);
    let a = put(&*store, &product, "a", Some(1)).await;
    assert_eq!(a.order, 1);
    assert_eq!(orders(&*store, &product).await, numbered(&["a", "b", "d"]));
    let c = put(&*store, &product, "c", Some(3)).await;
    assert_eq!(c.order, 3);
    let e = put(&*store, &product, "e", Some(99)).await;
    assert_eq!(e.order, 5, "a position past the end means last");
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["a", "b", "c", "d", "e"])
    );
    let x = put(&*store, &side, "x", Some(1)).await;
    assert_eq!(x.order, 1, "each roadmap counts its own stages");
    let y = put(&*store, &side, "y", Some(1)).await;
    assert_eq!(y.order, 1);
    assert_eq!(orders(&*store, &side).await, numbered(&["y", "x"]));

    // Moves.
    assert_eq!(move_to(&*store, &e, 1).await.order, 1);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["e", "a", "b", "c", "d"])
    );
    assert_eq!(move_to(&*store, &e, 3).await.order, 3);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["a", "b", "e", "c", "d"])
    );
    assert_eq!(move_to(&*store, &a, 99).await.order, 5);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["b", "e", "c", "d", "a"])
    );
    assert_eq!(move_to(&*store, &c, 3).await.order, 3, "moving in place");
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["b", "e", "c", "d", "a"])
    );

    // An update without a position keeps the place and saves name, meta and update time.
    let mut renamed = c.clone();
    renamed.name = "c — privée".into();
    renamed.meta.is_private = true;
    renamed.meta.disable_moderation = true;
    renamed.meta.color = Some("#3B82F6".into());
    renamed.updated_at = at("2026-03-08T09:10:11.012Z");
    let stored_c = store.save_stage(&renamed, None).await.unwrap();
    let expected_c = Stage {
        order: 3,
        ..renamed.clone()
    };
    assert_eq!(stored_c, Some(expected_c.clone()));
    assert_eq!(
        store.stage(team, c.id).await.unwrap(),
        Some(StageView {
            stage: expected_c.clone(),
            topic_count: 0
        })
    );
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["b", "e", "c — privée", "d", "a"])
    );
    // A move saves the other fields too.
    let mut recolored = expected_c.clone();
    recolored.meta.color = None;
    recolored.meta.is_private = false;
    let moved = store.save_stage(&recolored, Some(1)).await.unwrap();
    assert_eq!(
        moved,
        Some(Stage {
            order: 1,
            ..recolored.clone()
        })
    );
    let mut private_again = moved.unwrap();
    private_again.meta.is_private = true;
    let private_again = move_to(&*store, &private_again, 3).await;
    assert_eq!(private_again.order, 3);
    assert!(private_again.meta.is_private);

    // Private stages are listed only when asked; the numbering counts them.
    let public: Vec<(String, i64)> = store
        .stages(team, product.id, false)
        .await
        .unwrap()
        .into_iter()
        .map(|v| (v.stage.name, v.stage.order))
        .collect();
    assert_eq!(
        public,
        vec![
            ("b".to_owned(), 1),
            ("e".to_owned(), 2),
            ("d".to_owned(), 4),
            ("a".to_owned(), 5)
        ]
    );
    let every = store.stages(team, product.id, true).await.unwrap();
    assert_eq!(every.len(), 5);
    assert!(every.iter().all(|v| v.topic_count == 0));
    assert_eq!(
        every[0],
        StageView {
            stage: Stage { order: 1, ..b },
            topic_count: 0
        },
        "listed stages are the stored ones"
    );

    // Deletes close the gap: in the middle, at the end, at the start.
    assert!(store.delete_stage(team, e.id, false).await.unwrap());
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["b", "c — privée", "d", "a"])
    );
    assert!(store.delete_stage(team, a.id, false).await.unwrap());
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["b", "c — privée", "d"])
    );
    assert!(store.delete_stage(team, b.id, false).await.unwrap());
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["c — privée", "d"])
    );
    assert!(
        !store.delete_stage(team, b.id, false).await.unwrap(),
        "deleting twice finds nothing the second time"
    );
    assert_eq!(store.stage(team, b.id).await.unwrap(), None);
    // Inserting after deletes continues the sequence.
    let f = put(&*store, &product, "f", None).await;
    assert_eq!(f.order, 3);
    let g = put(&*store, &product, "g", Some(2)).await;
    assert_eq!(g.order, 2);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["c — privée", "g", "d", "f"])
    );
    assert_eq!(orders(&*store, &side).await, numbered(&["y", "x"]));

    // Another team sees and touches nothing.
    assert_eq!(store.stage(other, d.id).await.unwrap(), None);
    assert_eq!(store.stages(other, product.id, true).await.unwrap(), vec![]);
    assert!(!store.delete_stage(other, d.id, true).await.unwrap());
    let mut hijack = d.clone();
    hijack.team_id = other;
    hijack.name = "Hijacked".into();
    assert_eq!(store.save_stage(&hijack, Some(1)).await.unwrap(), None);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["c — privée", "g", "d", "f"])
    );

    // No stage goes into a missing roadmap or another team's, and a missing stage is not
    // updated; nothing is written.
    let lost = stage(&roadmap(team, "Missing", t0()), "lost", t0());
    assert_eq!(store.insert_stage(&lost, Some(1)).await.unwrap(), None);
    assert_eq!(store.stage(team, lost.id).await.unwrap(), None);
    let mut into_foreign = stage(&foreign, "sneaky", t0());
    into_foreign.team_id = team;
    assert_eq!(store.insert_stage(&into_foreign, None).await.unwrap(), None);
    let mut foreign_team = stage(&product, "sneaky", t0());
    foreign_team.team_id = other;
    assert_eq!(store.insert_stage(&foreign_team, None).await.unwrap(), None);
    assert_eq!(store.stages(team, foreign.id, true).await.unwrap(), vec![]);
    assert_eq!(store.stages(other, foreign.id, true).await.unwrap(), vec![]);
    assert_eq!(store.stage(team, foreign_team.id).await.unwrap(), None);
    let ghost = stage(&product, "ghost", t0());
    assert_eq!(store.save_stage(&ghost, None).await.unwrap(), None);
    assert_eq!(store.save_stage(&ghost, Some(1)).await.unwrap(), None);
    assert_eq!(store.stage(team, ghost.id).await.unwrap(), None);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["c — privée", "g", "d", "f"])
    );
    assert!(!store
        .delete_stage(team, StageId::new(), false)
        .await
        .unwrap());
}

pub async fn concurrent_stage_writes_keep_orders_distinct_and_gapless(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let product = stored_roadmap(&*store, team, "Product").await;
    let side = stored_roadmap(&*store, team, "Side").await;
    let seed = put(&*store, &side, "seed", None).await;

    // Twenty inserts at once, at the start, in the middle and at the end, into one roadmap,
    // and four into another.
    let tasks: Vec<_> = (0..24i64)
        .map(|i| {
            let store = store.clone();
            let target = if i % 6 == 5 {
                side.clone()
            } else {
                product.clone()
            };
            let position = match i % 3 {
                0 => None,
                1 => Some(1),
                _ => Some(2),
            };
            let s = stage(&target, &format!("s{i:02}"), t0().plus_seconds(i));
            tokio::spawn(async move {
                let stored = store.insert_stage(&s, position).await.unwrap();
                (s.id, s.roadmap_id, stored)
            })
        })
        .collect();
    let mut ids = BTreeSet::new();
    for task in tasks {
        let (id, roadmap_id, stored) = task.await.unwrap();
        let stored = stored.expect("the roadmap exists");
        assert_eq!(stored.id, id);
        let limit = if roadmap_id == product.id { 21 } else { 6 };
        assert!(
            (1..limit).contains(&stored.order),
            "an order within the stages inserted so far, got {}",
            stored.order
        );
        if roadmap_id == product.id {
            ids.insert(id);
        }
    }
    let listed = store.stages(team, product.id, true).await.unwrap();
    assert_eq!(
        listed.iter().map(|v| v.stage.order).collect::<Vec<_>>(),
        (1..=20).collect::<Vec<i64>>(),
        "twenty stages numbered 1 to 20"
    );
    assert_eq!(
        listed.iter().map(|v| v.stage.id).collect::<BTreeSet<_>>(),
        ids
    );
    let side_orders: Vec<i64> = store
        .stages(team, side.id, true)
        .await
        .unwrap()
        .iter()
        .map(|v| v.stage.order)
        .collect();
    assert_eq!(side_orders, vec![1, 2, 3, 4, 5]);
    assert!(store.stage(team, seed.id).await.unwrap().is_some());

    // Moves and deletes at once keep the sequence too.
    let stages: Vec<Stage> = listed.into_iter().map(|v| v.stage).collect();
    let tasks: Vec<_> = stages
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let store = store.clone();
            let s = s.clone();
            tokio::spawn(async move {
                if i % 4 == 0 {
                    assert!(store.delete_stage(s.team_id, s.id, false).await.unwrap());
                } else {
                    let position = Some(i64::try_from(20 - i).unwrap());
                    assert!(store.save_stage(&s, position).await.unwrap().is_some());
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let after = store.stages(team, product.id, true).await.unwrap();
    assert_eq!(
        after.iter().map(|v| v.stage.order).collect::<Vec<_>>(),
        (1..=15).collect::<Vec<i64>>(),
        "five deleted, the rest numbered 1 to 15"
    );
}

pub async fn stages_count_their_published_topics(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let planned = stored_stage(&*store, &product, "Planned").await;
    let mut shipped = stored_stage(&*store, &product, "Shipped").await;
    let later = stored_stage(&*store, &product, "Later").await;

    let one = stored_topic(&*store, topic(&planned, creator.id, "count00001", t0())).await;
    stored_topic(&*store, topic(&planned, creator.id, "count00002", t0())).await;
    let mut draft = topic(&planned, creator.id, "count00003", t0());
    draft.published_at = None;
    stored_topic(&*store, draft.clone()).await;
    stored_topic(&*store, topic(&shipped, creator.id, "count00004", t0())).await;
    // Private stages count their published topics as well.
    shipped.meta.is_private = true;
    let shipped = store.save_stage(&shipped, None).await.unwrap().unwrap();

    let product_id = product.id;
    let counts = |store: Arc<dyn Store>| async move {
        store
            .stages(team, product_id, true)
            .await
            .unwrap()
            .into_iter()
            .map(|v| v.topic_count)
            .collect::<Vec<i64>>()
    };
    assert_eq!(
        counts(store.clone()).await,
        vec![2, 1, 0],
        "published topics only"
    );
    assert_eq!(
        store.stage(team, planned.id).await.unwrap(),
        Some(StageView {
            stage: planned.clone(),
            topic_count: 2
        })
    );
    assert_eq!(
        store
            .stage(team, shipped.id)
            .await
            .unwrap()
            .unwrap()
            .topic_count,
        1
    );
    assert_eq!(
        store.stages(team, product.id, false).await.unwrap()[0].topic_count,
        2
    );

    // Publishing, moving and deleting topics change the counts.
    draft.published_at = Some(t0().plus_seconds(60));
    assert!(store.save_topic(&draft, &[]).await.unwrap());
    assert_eq!(counts(store.clone()).await, vec![3, 1, 0]);
    let mut moved = one.clone();
    moved.stage_id = later.id;
    assert!(store.save_topic(&moved, &[]).await.unwrap());
    assert_eq!(counts(store.clone()).await, vec![2, 1, 1]);
    assert!(store.delete_topic(team, moved.id, &[]).await.unwrap());
    assert_eq!(counts(store.clone()).await, vec![2, 1, 0]);
}

pub async fn stage_delete_is_refused_while_it_holds_topics_unless_forced(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let product = stored_roadmap(&*store, team, "Product").await;
    let first = stored_stage(&*store, &product, "First").await;
    let busy = stored_stage(&*store, &product, "Busy").await;
    let last = stored_stage(&*store, &product, "Last").await;

    // Even one topic awaiting moderation holds the stage.
    let mut draft = topic(&busy, creator.id, "draft00001", t0());
    draft.published_at = None;
    stored_topic(&*store, draft.clone()).await;
    assert_eq!(
        store.delete_stage(team, busy.id, false).await,
        Err(conflict(Conflict::StageNotEmpty))
    );
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["First", "Busy", "Last"]),
        "nothing removed"
    );
    assert!(topic_exists(&*store, &draft).await);

    // A published topic with votes, a thread, a follower and a visit; and one elsewhere.
    let held = stored_topic(&*store, topic(&busy, creator.id, "held000001", t0())).await;
    let keep = stored_topic(&*store, topic(&last, creator.id, "keep000001", t0())).await;
    let mut threads = Vec::new();
    for t in [&held, &keep] {
        store
            .cast_topic_vote(team, &topic_vote(t, voter.id, t0()), &[])
            .await
            .unwrap();
        let root = topic_comment(t, voter.id, None, "root", t0().plus_seconds(1));
        let reply = topic_comment(t, creator.id, Some(&root), "reply", t0().plus_seconds(2));
        for c in [&root, &reply] {
            assert!(store.insert_topic_comment(c, &[]).await.unwrap());
        }
        threads.push((root, reply));
        assert_eq!(
            store
                .record_topic_visit(team, &topic_visit(t.id, "viewer", t0(), 120))
                .await
                .unwrap(),
            Some(1)
        );
    }
    assert_eq!(
        store.delete_stage(team, busy.id, false).await,
        Err(conflict(Conflict::StageNotEmpty))
    );
    assert!(
        !store.delete_stage(other, busy.id, true).await.unwrap(),
        "another team cannot delete it"
    );
    assert!(topic_exists(&*store, &held).await);

    // Forced: the stage goes with its topics and everything on them.
    assert!(store.delete_stage(team, busy.id, true).await.unwrap());
    assert_eq!(store.stage(team, busy.id).await.unwrap(), None);
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["First", "Last"])
    );
    for gone in [&draft, &held] {
        assert!(!topic_exists(&*store, gone).await);
        assert_eq!(
            store.topic_by_url_id(team, &gone.url_id).await.unwrap(),
            None
        );
        assert_eq!(
            store.topic_vote_state(team, gone.id, None).await.unwrap(),
            None
        );
        assert_eq!(store.topic_followers(team, gone.id).await.unwrap(), vec![]);
    }
    let (held_root, held_reply) = &threads[0];
    assert_eq!(store.topic_comment(team, held_root.id).await.unwrap(), None);
    assert_eq!(
        store.topic_comment(team, held_reply.id).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .comment_threads(team, &thread_query(Some(held.id), ThreadScope::Team))
            .await
            .unwrap(),
        empty_page(everything())
    );
    let team_threads = store
        .comment_threads(team, &thread_query(None, ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(team_threads.total, 1);
    assert_eq!(team_threads.items[0].root.comment, threads[1].0);
    let listed = store
        .list_topics(team, &topic_query(TopicSort::CreatedAt, Direction::Asc))
        .await
        .unwrap();
    assert_eq!(listed.total, 1);
    assert_eq!(listed.items[0].topic.id, keep.id);
    let kept = store.topic(team, keep.id).await.unwrap().unwrap();
    assert_eq!((kept.vote_count, kept.comment_count), (1, 2));
    assert_eq!(
        store
            .topic_vote_state(team, keep.id, Some(voter.id))
            .await
            .unwrap(),
        Some(TopicVoteState {
            count: 1,
            voted: true
        })
    );

    // Nothing of the removed topics survived: stored again, the held one starts empty.
    let mut again = held.clone();
    again.stage_id = first.id;
    stored_topic(&*store, again.clone()).await;
    let fresh = store.topic(team, held.id).await.unwrap().unwrap();
    assert_eq!(
        (fresh.vote_count, fresh.comment_count, fresh.topic.visits),
        (0, 0, 0)
    );
    assert_eq!(
        store
            .record_topic_visit(
                team,
                &topic_visit(held.id, "viewer", t0().plus_seconds(1), 120)
            )
            .await
            .unwrap(),
        Some(1),
        "the old visit record is gone"
    );

    // An empty stage is deleted without force; a missing one is not found.
    let empty = stored_stage(&*store, &product, "Empty").await;
    assert!(store.delete_stage(team, empty.id, false).await.unwrap());
    assert!(!store.delete_stage(team, busy.id, true).await.unwrap());
    assert_eq!(
        orders(&*store, &product).await,
        numbered(&["First", "Last"])
    );
}

pub async fn roadmap_delete_is_refused_while_it_holds_topics_unless_forced(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let doomed = stored_roadmap(&*store, team, "Doomed").await;
    let kept = stored_roadmap(&*store, team, "Kept").await;
    let early = stored_stage(&*store, &doomed, "Early").await;
    let late = stored_stage(&*store, &doomed, "Late").await;
    let elsewhere = stored_stage(&*store, &kept, "Elsewhere").await;

    let mut draft = topic(&late, creator.id, "draft00001", t0());
    draft.published_at = None;
    stored_topic(&*store, draft.clone()).await;
    let survivor = stored_topic(&*store, topic(&elsewhere, creator.id, "keep000001", t0())).await;
    assert_eq!(
        store.delete_roadmap(team, doomed.id, false).await,
        Err(conflict(Conflict::RoadmapNotEmpty)),
        "a topic awaiting moderation holds the roadmap"
    );
    assert_eq!(
        store.roadmap(team, doomed.id).await.unwrap(),
        Some(doomed.clone())
    );
    assert_eq!(orders(&*store, &doomed).await, numbered(&["Early", "Late"]));
    assert!(topic_exists(&*store, &draft).await);
    assert!(!store.delete_roadmap(other, doomed.id, true).await.unwrap());
    assert_eq!(
        store.roadmap(team, doomed.id).await.unwrap(),
        Some(doomed.clone())
    );

    let on_early = stored_topic(&*store, topic(&early, creator.id, "early00001", t0())).await;
    let mut comments = Vec::new();
    for t in [&on_early, &draft, &survivor] {
        store
            .cast_topic_vote(team, &topic_vote(t, voter.id, t0()), &[])
            .await
            .unwrap();
        let c = topic_comment(t, voter.id, None, "hello", t0().plus_seconds(1));
        assert!(store.insert_topic_comment(&c, &[]).await.unwrap());
        comments.push(c);
    }

    assert!(store.delete_roadmap(team, doomed.id, true).await.unwrap());
    assert_eq!(store.roadmap(team, doomed.id).await.unwrap(), None);
    assert_eq!(store.roadmaps(team).await.unwrap(), vec![kept.clone()]);
    for s in [&early, &late] {
        assert_eq!(store.stage(team, s.id).await.unwrap(), None);
    }
    assert_eq!(store.stages(team, doomed.id, true).await.unwrap(), vec![]);
    for gone in [&on_early, &draft] {
        assert!(!topic_exists(&*store, gone).await);
        assert_eq!(
            store.topic_vote_state(team, gone.id, None).await.unwrap(),
            None
        );
        assert_eq!(store.topic_followers(team, gone.id).await.unwrap(), vec![]);
    }
    for c in &comments[..2] {
        assert_eq!(store.topic_comment(team, c.id).await.unwrap(), None);
    }
    assert_eq!(
        store.topic_comment(team, comments[2].id).await.unwrap(),
        Some(comments[2].clone())
    );
    let threads = store
        .comment_threads(team, &thread_query(None, ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(threads.total, 1, "only the kept roadmap's thread remains");
    let listed = store
        .list_topics(team, &topic_query(TopicSort::CreatedAt, Direction::Asc))
        .await
        .unwrap();
    assert_eq!(
        listed
            .items
            .iter()
            .map(|v| v.topic.id)
            .collect::<Vec<TopicId>>(),
        vec![survivor.id]
    );
    let survived = store.topic(team, survivor.id).await.unwrap().unwrap();
    assert_eq!((survived.vote_count, survived.comment_count), (1, 1));
    assert_eq!(orders(&*store, &kept).await, numbered(&["Elsewhere"]));
    assert!(!store.delete_roadmap(team, doomed.id, false).await.unwrap());

    // A roadmap whose stages hold no topic is deleted, stages and all, without force.
    let bare = stored_roadmap(&*store, team, "Bare").await;
    let bare_stage = stored_stage(&*store, &bare, "Only").await;
    assert!(store.delete_roadmap(team, bare.id, false).await.unwrap());
    assert_eq!(store.stage(team, bare_stage.id).await.unwrap(), None);
    assert_eq!(store.roadmaps(team).await.unwrap(), vec![kept]);
    assert!(!store
        .delete_roadmap(team, RoadmapId::new(), false)
        .await
        .unwrap());
}
