//! Subscribers: identify creates then merges (also under concurrency), and revoking tokens. The
//! same on every adapter.

use std::{collections::BTreeSet, sync::Arc};

use serde_json::{json, Value};
use sounding_domain::{
    ids::SubscriberId,
    ports::Store,
    subscriber::{Identify, SubscriberSource},
};

use crate::fixtures::{at, identify, stored_team, t0};

pub async fn identify_creates_then_merges(store: Arc<dyn Store>) {
    let acme = stored_team(&*store, "acme").await;
    let team = acme.team.id;
    let first_at = at("2026-04-01T10:00:00.100Z");
    let first = Identify::new(
        Some(" Jane.Doe@Example.COM "),
        None,
        Some(&json!({"plan": "free", "mmr": 12.5, "nested": {"list": [1, {"deep": true}]}})),
        Some("https://cdn.example/jane.png"),
        Some("widget"),
    )
    .unwrap();

    let (created, is_new) = store.identify(team, &first, first_at).await.unwrap();
    assert!(is_new);
    assert_eq!(
        created.email.as_ref().unwrap().as_str(),
        "jane.doe@example.com"
    );
    assert_eq!(created.name, "Jane Doe");
    assert_eq!(created.source, SubscriberSource::Widget);
    assert_eq!(created.token_version, 0);
    assert_eq!(
        (created.created_at, created.last_updated),
        (first_at, first_at)
    );
    assert_eq!(created.attributes.plan.as_deref(), Some("free"));
    assert_eq!(
        store.subscriber(team, created.id).await.unwrap(),
        Some(created.clone())
    );
    assert_eq!(
        store
            .subscriber_by_email(team, "jane.doe@example.com")
            .await
            .unwrap(),
        Some(created.clone())
    );

    let second_at = at("2026-04-02T11:00:00.200Z");
    let second = identify(
        "jane.doe@example.com",
        Some("Jane"),
        Some(json!({"plan": "pro", "role": "cto", "nested": null})),
    );
    let (merged, is_new) = store.identify(team, &second, second_at).await.unwrap();
    assert!(!is_new);
    assert_eq!(merged.id, created.id);
    assert_eq!(merged.name, "Jane");
    assert_eq!(
        Value::Object(merged.meta.clone()),
        json!({"plan": "pro", "mmr": 12.5, "role": "cto"})
    );
    assert_eq!(merged.attributes.plan.as_deref(), Some("pro"));
    assert_eq!(merged.attributes.role.as_deref(), Some("cto"));
    assert_eq!(merged.attributes.mmr, Some(12.5));
    assert_eq!(merged.avatar_url, created.avatar_url, "not given, so kept");
    assert_eq!(merged.source, SubscriberSource::Widget);
    assert_eq!(
        (merged.created_at, merged.last_updated),
        (first_at, second_at)
    );
    assert_eq!(
        store.subscriber(team, created.id).await.unwrap(),
        Some(merged.clone())
    );

    // Another team neither sees nor shares the subscriber.
    let other = stored_team(&*store, "other").await.team.id;
    assert_eq!(store.subscriber(other, created.id).await.unwrap(), None);
    assert_eq!(
        store
            .subscriber_by_email(other, "jane.doe@example.com")
            .await
            .unwrap(),
        None
    );
    let (elsewhere, is_new) = store.identify(other, &second, second_at).await.unwrap();
    assert!(is_new);
    assert_ne!(elsewhere.id, created.id);
    assert_eq!(
        store.subscriber(team, SubscriberId::new()).await.unwrap(),
        None
    );
}

pub async fn concurrent_identify_of_one_email_creates_one_subscriber(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let input = identify(
                    "race@example.com",
                    None,
                    Some(json!({ format!("k{i}"): i })),
                );
                store
                    .identify(team, &input, t0().plus_seconds(i))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap());
    }

    let created = results.iter().filter(|(_, created)| *created).count();
    assert_eq!(created, 1, "exactly one call creates the subscriber");
    let ids: BTreeSet<SubscriberId> = results.iter().map(|(s, _)| s.id).collect();
    assert_eq!(ids.len(), 1, "every call answers with the same subscriber");

    let stored = store
        .subscriber_by_email(team, "race@example.com")
        .await
        .unwrap()
        .expect("the subscriber exists");
    let keys: BTreeSet<String> = stored.meta.keys().cloned().collect();
    let expected: BTreeSet<String> = (0..20).map(|i| format!("k{i}")).collect();
    assert_eq!(keys, expected, "no call's merge was lost");
}

pub async fn revoking_tokens_bumps_the_version_within_the_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let (subscriber, _) = store
        .identify(team, &identify("a@example.com", None, None), t0())
        .await
        .unwrap();

    let t1 = at("2026-05-01T00:00:00.001Z");
    let t2 = at("2026-05-02T00:00:00.002Z");
    assert_eq!(
        store.revoke_tokens(team, subscriber.id, t1).await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store.revoke_tokens(team, subscriber.id, t2).await.unwrap(),
        Some(2)
    );
    assert_eq!(
        store.revoke_tokens(other, subscriber.id, t2).await.unwrap(),
        None,
        "another team cannot revoke"
    );
    assert_eq!(
        store
            .revoke_tokens(team, SubscriberId::new(), t2)
            .await
            .unwrap(),
        None
    );

    let after = store
        .subscriber(team, subscriber.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.token_version, 2);
    assert_eq!(after.last_updated, t2);

    // A later identify keeps the version: it must not revive old tokens.
    let (again, _) = store
        .identify(team, &identify("a@example.com", Some("A"), None), t2)
        .await
        .unwrap();
    assert_eq!(again.token_version, 2);
}
