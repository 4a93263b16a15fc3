//! Votes cast at once. On PostgreSQL the votes that arrive while others are being cast go in
//! together, in one statement (`batch`, `repos/feedback/cast.rs`); on SQLite the writer
//! thread groups them in one transaction. Either way each vote must get its own outcome, its
//! own count and its own event, exactly as if cast alone.

mod support;

use std::collections::{BTreeSet, HashMap};

use sounding_domain::{
    event::{EventKind, NewEvent},
    feedback::Feedback,
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
    ids::{FeedbackId, FeedbackVoteId, SubscriberId, TeamId},
    ports::{FeedbackStore, WebhookStore},
};
use sounding_store_diesel::{DieselStore, Engine};
use sounding_tests::fixtures::{self, event, subscriber, t0};
use support::{
    counted::{postgres, sqlite},
    on_every_engine, statements_of, team, Env,
};

on_every_engine!(votes_cast_at_once_each_get_their_own_outcome_count_and_event);

async fn stored_item(
    store: &DieselStore,
    team: TeamId,
    creator: SubscriberId,
    published: bool,
) -> Feedback {
    let url_id = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    let mut item = fixtures::feedback(team, None, creator, &url_id, t0());
    if !published {
        item.published_at = None;
    }
    store.insert_feedback(&item, &[], &[]).await.unwrap();
    item
}

/// A vote as the app casts it, with its one event.
struct Ballot {
    vote: FeedbackVote,
    access: VoteAccess,
    events: Vec<NewEvent>,
}

fn ballot(
    team: TeamId,
    item: FeedbackId,
    voter: SubscriberId,
    access: VoteAccess,
    n: i64,
) -> Ballot {
    Ballot {
        vote: FeedbackVote {
            id: FeedbackVoteId::new(),
            feedback_id: item,
            subscriber_id: voter,
            created_at: t0(),
        },
        access,
        events: vec![event(team, EventKind::NewFeedbackVote, t0(), n)],
    }
}

async fn votes_cast_at_once_each_get_their_own_outcome_count_and_event(env: Env) {
    let store = env.store.as_ref().clone();
    let a = team(&store, "a").await;
    let author = subscriber(&store, a, "author@example.com").await;
    let popular = stored_item(&store, a, author.id, true).await.id;
    let other = stored_item(&store, a, author.id, true).await.id;
    let unpublished = stored_item(&store, a, author.id, false).await.id;
    let missing = FeedbackId::new();
    let mut voters = Vec::new();
    for i in 0..24 {
        voters.push(
            subscriber(&store, a, &format!("voter{i}@example.com"))
                .await
                .id,
        );
    }

    // Every voter on `popular`, the first eight of them twice; every third on `other`; two
    // team votes on the unpublished item (allowed) and four public ones (not); four on an
    // item that does not exist.
    let mut ballots = Vec::new();
    let public = VoteAccess::Public;
    for (n, &voter) in (0..).zip(&voters) {
        ballots.push(ballot(a, popular, voter, public, n));
    }
    for (n, &voter) in (100..).zip(&voters[..8]) {
        ballots.push(ballot(a, popular, voter, public, n));
    }
    for (n, &voter) in (200..).zip(voters.iter().step_by(3)) {
        ballots.push(ballot(a, other, voter, public, n));
    }
    for (n, &voter) in (300..).zip(&voters[..2]) {
        ballots.push(ballot(a, unpublished, voter, VoteAccess::Checked, n));
    }
    for (n, &voter) in (400..).zip(&voters[2..6]) {
        ballots.push(ballot(a, unpublished, voter, public, n));
    }
    for (n, &voter) in (500..).zip(&voters[..4]) {
        ballots.push(ballot(a, missing, voter, public, n));
    }
    let sent = ballots.len();

    let casting = async {
        let mut tasks = tokio::task::JoinSet::new();
        for ballot in ballots {
            let store = store.clone();
            tasks.spawn(async move {
                let outcome = store
                    .cast_vote(a, &ballot.vote, ballot.access, &ballot.events)
                    .await
                    .unwrap();
                (ballot.vote, outcome)
            });
        }
        tasks.join_all().await
    };
    let (outcomes, statements) = statements_of(&[&a.to_string()], casting).await;

    // Per item and voter: exactly one vote counted, the others refused as already cast.
    let mut totals: HashMap<FeedbackId, BTreeSet<i64>> = HashMap::new();
    let mut per_pair: HashMap<(FeedbackId, SubscriberId), Vec<&VoteOutcome>> = HashMap::new();
    for (vote, outcome) in &outcomes {
        match outcome {
            VoteOutcome::Cast {
                vote: cast,
                total_votes,
            } => {
                assert_eq!(cast, vote, "the vote cast is the vote sent");
                assert!(
                    totals
                        .entry(vote.feedback_id)
                        .or_default()
                        .insert(*total_votes),
                    "two votes on one item were given the same count {total_votes}"
                );
            }
            VoteOutcome::NotFound => assert_eq!(vote.feedback_id, missing),
            VoteOutcome::NotPublic(reach) => {
                assert_eq!(vote.feedback_id, unpublished);
                assert!(!reach.published);
            }
            VoteOutcome::AlreadyVoted => {}
        }
        per_pair
            .entry((vote.feedback_id, vote.subscriber_id))
            .or_default()
            .push(outcome);
    }
    for ((item, _), outcomes) in &per_pair {
        let cast = outcomes
            .iter()
            .filter(|o| matches!(o, VoteOutcome::Cast { .. }))
            .count();
        let already = outcomes
            .iter()
            .filter(|o| matches!(o, VoteOutcome::AlreadyVoted))
            .count();
        if *item == missing {
            assert_eq!((cast, already), (0, 0));
        } else if *item == unpublished
            && outcomes
                .iter()
                .all(|o| matches!(o, VoteOutcome::NotPublic(_)))
        {
            continue;
        } else {
            assert_eq!((cast, already), (1, outcomes.len() - 1), "{outcomes:?}");
        }
    }
    // Each item's counts, as its votes went in: 1, 2, … with no gap.
    let expected = |n: i64| (1..=n).collect::<BTreeSet<_>>();
    assert_eq!(totals[&popular], expected(24));
    assert_eq!(totals[&other], expected(8));
    assert_eq!(totals[&unpublished], expected(2));

    // What was stored: the rows, the kept counts and one event per vote counted.
    let count = |sql: String| env.count(&sql);
    assert_eq!(
        count(format!(
            "SELECT COUNT(*) AS n FROM feedback_votes WHERE team_id = '{a}'"
        )),
        34
    );
    for (item, votes) in [(popular, 24), (other, 8), (unpublished, 2)] {
        assert_eq!(
            count(format!(
                "SELECT vote_count AS n FROM feedback_vote_counts WHERE id = '{item}'"
            )),
            votes
        );
    }
    assert_eq!(
        count(format!(
            "SELECT COUNT(*) AS n FROM outbox_events WHERE team_id = '{a}' AND event = '{}'",
            EventKind::NewFeedbackVote.as_str()
        )),
        34
    );
    // Nobody subscribes to votes: each event was written fanned out, so none waits.
    assert_eq!(
        count(format!(
            "SELECT COUNT(*) AS n FROM outbox_events WHERE team_id = '{a}' \
             AND dispatched_at IS NULL"
        )),
        0
    );
    assert_eq!(store.fan_out(t0(), 500).await.unwrap(), 0);

    // PostgreSQL cast them in batches: fewer statements than votes.
    if store.engine() == Engine::Postgres {
        assert!(
            statements < sent,
            "{statements} statements for {sent} votes: none were cast together"
        );
    }
}
