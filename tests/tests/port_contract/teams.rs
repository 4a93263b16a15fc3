//! Teams: a team with its owner and key, a taken subdomain, settings updated in place, and API keys
//! found by hash. The same on every adapter.

use sounding_tests::overwrite::Overwrite;
use std::sync::Arc;

use serde_json::{json, Value};
use sounding_domain::{
    access::Role,
    api_key::{hash_key, ApiKey, ApiKeyGrant},
    ids::TeamId,
    ports::{Conflict, Store},
    team::TeamPatch,
};

use crate::fixtures::{at, board, conflict, identify, stored_team, t0, team_fixture, view};

pub async fn a_team_is_created_with_its_owner_and_key(store: Arc<dyn Store>) {
    assert!(!store.any_team().await.unwrap(), "a new store has no team");
    let acme = stored_team(&*store, "acme").await;
    assert!(store.any_team().await.unwrap());

    assert_eq!(
        store.team(acme.team.id).await.unwrap(),
        Some(acme.team.clone())
    );
    assert_eq!(store.team(TeamId::new()).await.unwrap(), None);
    assert_eq!(
        store.team_by_subdomain("acme").await.unwrap(),
        Some(acme.team.clone())
    );
    assert_eq!(store.team_by_subdomain("acm").await.unwrap(), None);

    assert_eq!(
        store.api_key_by_hash(&acme.key.key_hash).await.unwrap(),
        Some(ApiKeyGrant {
            key: acme.key.clone(),
            user_role: Role::Owner,
        })
    );
    assert_eq!(
        store.api_key_by_hash(&hash_key("not a key")).await.unwrap(),
        None
    );

    assert_eq!(
        store.users(acme.team.id).await.unwrap(),
        vec![acme.owner.clone()]
    );
    assert_eq!(store.users(TeamId::new()).await.unwrap(), vec![]);
}

pub async fn a_taken_subdomain_is_a_conflict_and_writes_nothing(store: Arc<dyn Store>) {
    stored_team(&*store, "acme").await;
    let copycat = team_fixture("acme", t0());
    assert_eq!(
        store
            .create_team(&copycat.team, &copycat.owner, &copycat.key)
            .await,
        Err(conflict(Conflict::TeamSubdomain))
    );
    assert_eq!(store.team(copycat.team.id).await.unwrap(), None);
    assert_eq!(store.users(copycat.team.id).await.unwrap(), vec![]);
    assert_eq!(
        store.api_key_by_hash(&copycat.key.key_hash).await.unwrap(),
        None,
        "the failed team's key was not kept"
    );
    // The store still works after the failed transaction.
    let fresh = team_fixture("acme-2", t0());
    store
        .create_team(&fresh.team, &fresh.owner, &fresh.key)
        .await
        .unwrap();
    assert_eq!(
        store.team_by_subdomain("acme-2").await.unwrap(),
        Some(fresh.team)
    );
}

pub async fn team_settings_are_updated_in_place(store: Arc<dyn Store>) {
    let acme = stored_team(&*store, "acme").await;
    let mut team = acme.team.clone();
    team.apply(
        TeamPatch::new(
            Some("Acme Inc"),
            Some(true),
            Some(true),
            Some(Some("https://acme.example/login")),
        )
        .unwrap(),
        at("2026-03-05T00:00:00.001Z"),
    );
    store.save_team(&team).await.unwrap();
    assert_eq!(store.team(team.id).await.unwrap(), Some(team.clone()));
    assert_eq!(
        store.team_by_subdomain("acme").await.unwrap(),
        Some(team.clone())
    );

    // A setting removed is stored as removed, not left as it was.
    team.apply(
        TeamPatch::new(None, None, None, Some(None)).unwrap(),
        at("2026-03-05T00:00:01Z"),
    );
    assert_eq!(team.portal_sign_in_url, None);
    store.save_team(&team).await.unwrap();
    assert_eq!(store.team(team.id).await.unwrap(), Some(team));

    // Updating a team that does not exist creates nothing.
    let ghost = team_fixture("ghost", t0()).team;
    store.save_team(&ghost).await.unwrap();
    assert_eq!(store.team(ghost.id).await.unwrap(), None);
}

pub async fn api_keys_are_found_by_hash_until_deleted(store: Arc<dyn Store>) {
    let acme = stored_team(&*store, "acme").await;
    let (mut ci_key, _secret) = ApiKey::new(
        acme.team.id,
        acme.owner.id,
        Role::Member,
        true,
        Some("CI".into()),
        at("2026-03-04T06:00:00.500Z"),
    );
    ci_key.last_used_at = Some(at("2026-03-04T07:00:00.250Z"));
    store.insert_api_key(&ci_key).await.unwrap();

    assert_eq!(
        store.api_key_by_hash(&ci_key.key_hash).await.unwrap(),
        Some(ApiKeyGrant {
            key: ci_key.clone(),
            user_role: Role::Owner,
        }),
        "the grant carries the key's own role and its user's role"
    );

    assert!(store.delete_api_key(ci_key.id).await.unwrap());
    assert!(!store.delete_api_key(ci_key.id).await.unwrap());
    assert_eq!(store.api_key_by_hash(&ci_key.key_hash).await.unwrap(), None);
    assert!(
        store
            .api_key_by_hash(&acme.key.key_hash)
            .await
            .unwrap()
            .is_some(),
        "deleting one key leaves the others"
    );
    assert!(!store
        .delete_api_key(sounding_domain::ids::ApiKeyId::new())
        .await
        .unwrap());
}

pub async fn timestamps_and_meta_round_trip_exactly(store: Arc<dyn Store>) {
    let instants = [
        "1999-12-31T23:59:59.999Z",
        "2026-11-22T10:04:05.123Z",
        "2026-11-22T10:04:05.100Z",
        "2026-11-22T10:04:05.000Z",
        "2038-01-19T03:14:08.001Z",
    ]
    .map(at);
    for (i, instant) in instants.into_iter().enumerate() {
        let mut fixture = team_fixture(&format!("t{i}"), instant);
        fixture.team.updated_at = instant.plus_seconds(1);
        store
            .create_team(&fixture.team, &fixture.owner, &fixture.key)
            .await
            .unwrap();
        let read = store.team(fixture.team.id).await.unwrap().unwrap();
        assert_eq!(read, fixture.team);
        assert_eq!(read.created_at.to_rfc3339(), instant.to_rfc3339());
        assert_eq!(
            store.users(fixture.team.id).await.unwrap(),
            vec![fixture.owner.clone()]
        );

        let b = board(fixture.team.id, "b", 1, instant);
        store.insert_board(&b).await.unwrap();
        assert_eq!(
            store.board(fixture.team.id, b.id).await.unwrap(),
            Some(view(&b))
        );
    }

    let team = team_fixture("meta", t0());
    store
        .create_team(&team.team, &team.owner, &team.key)
        .await
        .unwrap();
    let meta = json!({
        "mmr": "42.5",
        "plan": "enterprise",
        "team": "core",
        "created_at": "2024-02-29T12:34:56.789+02:00",
        "floats": [0.1, 1e-7, -3.25e10, 6.02214076e23, 5e-324],
        "ints": [i64::MAX, i64::MIN, u64::MAX, 0],
        "text": "üñíçødé \"quoted\" \n new line",
        "empty": {"object": {}, "array": []},
        "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": true}}}}}}},
    });
    let (subscriber, _) = store
        .identify(
            team.team.id,
            &identify("m@example.com", None, Some(meta.clone())),
            instants[1],
        )
        .await
        .unwrap();
    assert_eq!(Value::Object(subscriber.meta.clone()), meta);
    assert_eq!(subscriber.attributes.mmr, Some(42.5));
    assert_eq!(
        subscriber.attributes.created_at,
        Some(at("2024-02-29T10:34:56.789Z"))
    );
    let read = store
        .subscriber(team.team.id, subscriber.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read, subscriber,
        "every field, meta and typed attributes included"
    );
    assert_eq!(Value::Object(read.meta), meta);
}
