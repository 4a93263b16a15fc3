//! The subscriber store on diesel, where diesel has its own machinery: the subscriber list's
//! total, kept by triggers (`subscriber_counts`). Each runs on SQLite and, when
//! `SOUNDING_TEST_POSTGRES_URL` names a server, on a fresh PostgreSQL database too.

mod support;

use sounding_domain::{
    ids::TeamId,
    page::PageRequest,
    ports::SubscriberStore,
    subscriber::{Identify, Subscriber},
    team_admin::SubscriberQuery,
};
use sounding_tests::fixtures::t0;
use support::{on_every_engine, postgres, sqlite, team, Env};

on_every_engine!(the_subscriber_lists_kept_total_follows_every_new_and_erased_subscriber);

async fn identify(env: &Env, team: TeamId, email: &str) -> (Subscriber, bool) {
    let input = Identify::new(Some(email), None, None, None, None).unwrap();
    env.store.identify(team, &input, t0()).await.unwrap()
}

/// The list's total unsearched (kept) and searched for what every e-mail here has (counted).
async fn totals(env: &Env, team: TeamId) -> (i64, i64) {
    let page = PageRequest::new(Some(1), None, 20).unwrap();
    let mut totals = [0; 2];
    for (total, search) in totals.iter_mut().zip([None, Some("@example.com")]) {
        let query = SubscriberQuery::new(search, None, page).unwrap();
        *total = env
            .store
            .list_subscribers(team, &query)
            .await
            .unwrap()
            .total;
    }
    (totals[0], totals[1])
}

/// The unsearched list reads its total from `subscriber_counts`. After each kind of change
/// (new subscribers, a known one identified again, erasing, an erased e-mail coming back) it
/// must equal the live subscribers really there, counted here with `COUNT(*)`, and the
/// searched (counted) total.
async fn the_subscriber_lists_kept_total_follows_every_new_and_erased_subscriber(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let check = |team: TeamId, expected: i64| {
        let env = &env;
        async move {
            let counted = env.count(&format!(
                "SELECT COUNT(*) AS n FROM subscribers \
                 WHERE team_id = '{team}' AND deleted_at IS NULL"
            ));
            assert_eq!(totals(env, team).await, (expected, expected));
            assert_eq!(counted, expected, "the live subscribers of {team}");
        }
    };
    let mut people = Vec::new();
    for n in 0..5 {
        people.push(identify(&env, a, &format!("p{n}@example.com")).await.0);
    }
    identify(&env, b, "other@example.com").await;
    check(a, 5).await;
    check(b, 1).await;

    assert!(
        !identify(&env, a, "p0@example.com").await.1,
        "known: nothing new"
    );
    check(a, 5).await;
    assert!(store.erase_subscriber(a, people[1].id, t0()).await.unwrap());
    check(a, 4).await;
    assert!(!store.erase_subscriber(a, people[1].id, t0()).await.unwrap());
    check(a, 4).await;
    assert!(
        identify(&env, a, "p1@example.com").await.1,
        "a new subscriber"
    );
    check(a, 5).await;
    check(b, 1).await;
}
