//! Feedback votes: one per subscriber, counted (also under concurrency), and idempotent retraction.
//! The same on every adapter.

use std::sync::Arc;

use sounding_domain::{
    event::EventKind,
    feedback::{Feedback, FeedbackScope, FeedbackSort},
    feedback_vote::{VoteOutcome, VoteState},
    ids::{FeedbackId, TeamId},
    ports::Store,
    subscriber::Subscriber,
};

use crate::fixtures::{
    at, cast, event, feedback, list_query, read, stored, stored_feedback, stored_team, subscriber,
    t0, vote, vote_counted,
};

/// What the vote checks start from: team `acme`, an item of its creator, and its voters.
struct Ballot {
    team: TeamId,
    creator: Subscriber,
    item: Feedback,
    voters: Vec<Subscriber>,
}

/// A [`Ballot`] on a new item `url_id` with `n` voters (`voter0@example.com`, …).
async fn ballot(store: &dyn Store, url_id: &str, n: usize) -> Ballot {
    let team = stored_team(store, "acme").await.team.id;
    let creator = subscriber(store, team, "creator@example.com").await;
    let item = stored_feedback(store, feedback(team, None, creator.id, url_id, t0())).await;
    let mut voters = Vec::new();
    for i in 0..n {
        voters.push(subscriber(store, team, &format!("voter{i}@example.com")).await);
    }
    Ballot {
        team,
        creator,
        item,
        voters,
    }
}

pub async fn votes_are_one_per_subscriber_and_counted(store: Arc<dyn Store>) {
    let Ballot {
        team,
        creator,
        item,
        voters,
    } = ballot(&*store, "vote000001", 3).await;
    let [s1, s2, s3] = <[Subscriber; 3]>::try_from(voters).unwrap();
    let other = stored_team(&*store, "other").await.team.id;
    let second = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "vote000002", t0()),
    )
    .await;

    let v1 = vote(&item, s1.id, at("2026-03-05T00:00:00.001Z"));
    let e1 = event(team, EventKind::NewFeedbackVote, v1.created_at, 1);
    assert_eq!(
        cast(&*store, team, &v1, std::slice::from_ref(&e1)).await,
        vote_counted(&v1, 1)
    );
    let v2 = vote(&item, s2.id, at("2026-03-05T00:00:00.002Z"));
    let e2 = event(team, EventKind::NewFeedbackVote, v2.created_at, 2);
    assert_eq!(
        cast(&*store, team, &v2, std::slice::from_ref(&e2)).await,
        vote_counted(&v2, 2)
    );

    // A second vote of s1 is refused and writes nothing.
    let repeat = vote(&item, s1.id, at("2026-03-06T00:00:00.003Z"));
    let e_repeat = event(team, EventKind::NewFeedbackVote, repeat.created_at, 3);
    assert_eq!(
        cast(&*store, team, &repeat, &[e_repeat]).await,
        VoteOutcome::AlreadyVoted
    );
    assert_eq!(
        store.vote_state(team, item.id, Some(s1.id)).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: Some(v1.clone())
        }),
        "the first vote stays"
    );
    assert_eq!(
        store.vote_state(team, item.id, Some(s2.id)).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: Some(v2.clone())
        })
    );
    assert_eq!(
        store.vote_state(team, item.id, Some(s3.id)).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: None
        })
    );
    assert_eq!(
        store.vote_state(team, item.id, None).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: None
        })
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e2)]
    );

    // Another team's item, or a missing one, takes no vote.
    let e_foreign = event(other, EventKind::NewFeedbackVote, t0(), 4);
    assert_eq!(
        cast(&*store, other, &vote(&item, s3.id, t0()), &[e_foreign]).await,
        VoteOutcome::NotFound
    );
    assert_eq!(store.vote_state(other, item.id, None).await.unwrap(), None);
    let missing = feedback(team, None, creator.id, "missing001", t0());
    let e_missing = event(team, EventKind::NewFeedbackVote, t0(), 5);
    assert_eq!(
        cast(&*store, team, &vote(&missing, s3.id, t0()), &[e_missing]).await,
        VoteOutcome::NotFound
    );
    assert_eq!(
        store
            .vote_state(team, missing.id, Some(s3.id))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.vote_state(team, item.id, Some(s3.id)).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: None
        })
    );
    assert_eq!(store.events(team).await.unwrap().len(), 2);
    assert_eq!(store.events(other).await.unwrap(), vec![]);

    // Votes are per item: s1 may vote on the second one.
    assert_eq!(
        store
            .vote_state(team, second.id, Some(s1.id))
            .await
            .unwrap(),
        Some(VoteState {
            count: 0,
            vote: None
        })
    );
    let on_second = vote(&second, s1.id, t0());
    assert_eq!(
        cast(&*store, team, &on_second, &[]).await,
        VoteOutcome::Cast {
            vote: on_second,
            total_votes: 1
        }
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);
}

pub async fn concurrent_votes_are_all_counted(store: Arc<dyn Store>) {
    let Ballot {
        team, item, voters, ..
    } = ballot(&*store, "race000001", 50).await;

    let tasks: Vec<_> = voters
        .iter()
        .enumerate()
        .map(|(i, voter)| {
            let store = store.clone();
            let v = vote(&item, voter.id, t0().plus_seconds(i as i64));
            let e = event(team, EventKind::NewFeedbackVote, v.created_at, i as i64);
            tokio::spawn(async move { cast(&*store, team, &v, &[e]).await })
        })
        .collect();
    let mut totals = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            VoteOutcome::Cast { total_votes, .. } => totals.push(total_votes),
            outcome => panic!("every voter's first vote is cast, got {outcome:?}"),
        }
    }
    totals.sort_unstable();
    assert_eq!(
        totals,
        (1..=50).collect::<Vec<i64>>(),
        "each cast reports the count just after its own vote"
    );

    assert_eq!(
        store.vote_state(team, item.id, None).await.unwrap(),
        Some(VoteState {
            count: 50,
            vote: None
        })
    );
    assert_eq!(read(&*store, &item).await.vote_count, 50);
    let page = store
        .list_feedback(
            team,
            &list_query(
                FeedbackScope::Team {
                    include_archived: false,
                },
                FeedbackSort::Top,
            ),
        )
        .await
        .unwrap();
    assert_eq!(page.items[0].vote_count, 50);
    assert_eq!(store.events(team).await.unwrap().len(), 50);
}

pub async fn concurrent_repeated_votes_count_once(store: Arc<dyn Store>) {
    let Ballot {
        team, item, voters, ..
    } = ballot(&*store, "race000002", 10).await;

    // Every voter votes five times at once.
    let tasks: Vec<_> = (0..5)
        .flat_map(|round| voters.iter().map(move |voter| (round, voter.id)))
        .map(|(round, voter)| {
            let store = store.clone();
            let v = vote(&item, voter, t0().plus_seconds(round));
            let e = event(team, EventKind::NewFeedbackVote, v.created_at, round);
            tokio::spawn(async move { cast(&*store, team, &v, &[e]).await })
        })
        .collect();
    let (mut cast, mut refused) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            VoteOutcome::Cast { .. } => cast += 1,
            VoteOutcome::AlreadyVoted => refused += 1,
            VoteOutcome::NotFound | VoteOutcome::NotPublic(_) => panic!("the item exists"),
        }
    }
    assert_eq!((cast, refused), (10, 40), "one vote per voter");
    assert_eq!(read(&*store, &item).await.vote_count, 10);
    assert_eq!(
        store.vote_state(team, item.id, None).await.unwrap(),
        Some(VoteState {
            count: 10,
            vote: None
        })
    );
    assert_eq!(
        store.events(team).await.unwrap().len(),
        10,
        "refused votes append no event"
    );
}

pub async fn retracting_is_idempotent(store: Arc<dyn Store>) {
    let Ballot {
        team, item, voters, ..
    } = ballot(&*store, "back000001", 3).await;
    let [s1, s2, s3] = <[Subscriber; 3]>::try_from(voters).unwrap();
    let other = stored_team(&*store, "other").await.team.id;
    for s in [&s1, &s2] {
        cast(&*store, team, &vote(&item, s.id, t0()), &[]).await;
    }

    assert_eq!(
        store.retract_vote(team, item.id, s1.id).await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store.retract_vote(team, item.id, s1.id).await.unwrap(),
        Some(1),
        "retracting again changes nothing"
    );
    assert_eq!(
        store.retract_vote(team, item.id, s3.id).await.unwrap(),
        Some(1),
        "a subscriber who never voted retracts nothing"
    );
    assert_eq!(
        store.vote_state(team, item.id, Some(s1.id)).await.unwrap(),
        Some(VoteState {
            count: 1,
            vote: None
        })
    );
    assert_eq!(read(&*store, &item).await.vote_count, 1);

    assert_eq!(
        store.retract_vote(other, item.id, s2.id).await.unwrap(),
        None,
        "another team cannot retract"
    );
    assert_eq!(
        store
            .retract_vote(team, FeedbackId::new(), s2.id)
            .await
            .unwrap(),
        None
    );
    assert_eq!(read(&*store, &item).await.vote_count, 1);

    // A retracted vote may be cast again.
    let again = vote(&item, s1.id, t0().plus_seconds(5));
    assert_eq!(
        cast(&*store, team, &again, &[]).await,
        vote_counted(&again, 2)
    );
    assert_eq!(
        store.retract_vote(team, item.id, s2.id).await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store.retract_vote(team, item.id, s1.id).await.unwrap(),
        Some(0)
    );
    assert_eq!(
        store.retract_vote(team, item.id, s1.id).await.unwrap(),
        Some(0),
        "the count never goes below zero"
    );
    assert_eq!(read(&*store, &item).await.vote_count, 0);
}
