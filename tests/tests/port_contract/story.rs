//! The storage story every adapter must tell the same way. Each check starts from an empty
//! store and pins one promise of `sounding_domain::ports`.

use std::{collections::BTreeSet, sync::Arc};

use serde_json::{json, Value};
use sounding_domain::{
    access::Role,
    api_key::{hash_key, ApiKey, ApiKeyGrant},
    board::BoardView,
    event::{EventKind, NewEvent, StoredEvent},
    ids::{BoardId, SubscriberId, TeamId},
    ports::{conflicts, Store, StoreError},
    subscriber::{Identify, SubscriberSource},
    team::TeamPatch,
    timestamp::Timestamp,
};
use uuid::Uuid;

use crate::fixtures::{at, board, identify, stored_team, t0, team_fixture};

fn conflict(rule: &str) -> StoreError {
    StoreError::Conflict(rule.to_owned())
}

fn view(board: &sounding_domain::board::Board) -> BoardView {
    BoardView {
        board: board.clone(),
        feedback_count: 0,
    }
}

fn stored(event: &NewEvent) -> StoredEvent {
    StoredEvent {
        id: event.id,
        team_id: event.team_id,
        kind: event.kind.as_str().to_owned(),
        occurred_at: event.occurred_at,
        payload: event.payload.clone(),
    }
}

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
    assert_eq!(
        store
            .user_by_email(acme.team.id, &acme.owner.email)
            .await
            .unwrap(),
        Some(acme.owner.clone())
    );
    assert_eq!(
        store
            .user_by_email(acme.team.id, "nobody@acme.example")
            .await
            .unwrap(),
        None
    );
    let other = stored_team(&*store, "other").await;
    assert_eq!(
        store
            .user_by_email(other.team.id, &acme.owner.email)
            .await
            .unwrap(),
        None,
        "users are found only in their own team"
    );
}

pub async fn a_taken_subdomain_is_a_conflict_and_writes_nothing(store: Arc<dyn Store>) {
    stored_team(&*store, "acme").await;
    let copycat = team_fixture("acme", t0());
    assert_eq!(
        store
            .create_team(&copycat.team, &copycat.owner, &copycat.key)
            .await,
        Err(conflict(conflicts::TEAM_SUBDOMAIN))
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
        TeamPatch::new(Some("Acme Inc"), Some(true), Some(true)).unwrap(),
        at("2026-03-05T00:00:00.001Z"),
    );
    store.update_team(&team).await.unwrap();
    assert_eq!(store.team(team.id).await.unwrap(), Some(team.clone()));
    assert_eq!(store.team_by_subdomain("acme").await.unwrap(), Some(team));

    // Updating a team that does not exist creates nothing.
    let ghost = team_fixture("ghost", t0()).team;
    store.update_team(&ghost).await.unwrap();
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

pub async fn boards_are_ordered_and_filtered(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    assert_eq!(store.boards(team, false).await.unwrap(), vec![]);
    assert_eq!(store.next_board_order(team).await.unwrap(), 1);

    let t1 = at("2026-06-01T00:00:00.500Z");
    let second = board(team, "second", 2, t0());
    // Same order and creation time: the id decides, whatever the insertion order.
    let mut tie_high = board(team, "tie-high", 1, t1);
    tie_high.id = BoardId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let mut tie_low = board(team, "tie-low", 1, t1);
    tie_low.id = BoardId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let earliest = board(team, "earliest", 1, t0());
    let mut hidden = board(team, "hidden", 3, t0());
    hidden.meta.is_public = false;
    hidden.meta.allow_public_submissions = false;
    hidden.meta.require_moderation = true;
    hidden.meta.color = Some("#3B82F6".into());
    for b in [&second, &tie_high, &tie_low, &earliest, &hidden] {
        store.insert_board(b).await.unwrap();
    }

    assert_eq!(
        store.boards(team, false).await.unwrap(),
        [&earliest, &tie_low, &tie_high, &second, &hidden]
            .map(view)
            .to_vec()
    );
    assert_eq!(
        store.boards(team, true).await.unwrap(),
        [&earliest, &tie_low, &tie_high, &second].map(view).to_vec(),
        "only public boards when asked"
    );
    assert_eq!(store.next_board_order(team).await.unwrap(), 4);
    assert_eq!(
        store.board(team, hidden.id).await.unwrap(),
        Some(view(&hidden))
    );
    assert_eq!(store.board(other, hidden.id).await.unwrap(), None);
    assert_eq!(store.board(team, BoardId::new()).await.unwrap(), None);
    assert_eq!(store.boards(other, false).await.unwrap(), vec![]);
    assert_eq!(store.next_board_order(other).await.unwrap(), 1);
}

pub async fn board_slugs_are_unique_per_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = board(team, "ideas", 1, t0());
    store.insert_board(&ideas).await.unwrap();
    assert!(store.board_slug_taken(team, "ideas").await.unwrap());
    assert!(!store.board_slug_taken(team, "bugs").await.unwrap());
    assert!(!store.board_slug_taken(other, "ideas").await.unwrap());

    let duplicate = board(team, "ideas", 2, t0());
    assert_eq!(
        store.insert_board(&duplicate).await,
        Err(conflict(conflicts::BOARD_SLUG))
    );
    assert_eq!(store.board(team, duplicate.id).await.unwrap(), None);
    store
        .insert_board(&board(other, "ideas", 1, t0()))
        .await
        .expect("another team may use the slug");

    // Updating a board without changing its slug is not a conflict with itself.
    let mut renamed = ideas.clone();
    renamed.name = "Ideas & wishes".into();
    renamed.order = 7;
    renamed.meta.color = Some("#00FF00".into());
    renamed.updated_at = at("2026-07-01T12:00:00.999Z");
    store.update_board(&renamed).await.unwrap();
    assert_eq!(
        store.board(team, ideas.id).await.unwrap(),
        Some(view(&renamed))
    );

    let bugs = board(team, "bugs", 2, t0());
    store.insert_board(&bugs).await.unwrap();
    let mut clash = bugs.clone();
    clash.slug = "ideas".into();
    clash.name = "Clash".into();
    assert_eq!(
        store.update_board(&clash).await,
        Err(conflict(conflicts::BOARD_SLUG))
    );
    assert_eq!(
        store.board(team, bugs.id).await.unwrap(),
        Some(view(&bugs)),
        "a refused update changes nothing"
    );

    let mut moved = bugs.clone();
    moved.slug = "issues".into();
    store.update_board(&moved).await.unwrap();
    assert!(!store.board_slug_taken(team, "bugs").await.unwrap());
    assert!(store.board_slug_taken(team, "issues").await.unwrap());
}

pub async fn boards_are_deleted_only_by_their_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let first = board(team, "first", 1, t0());
    let last = board(team, "last", 5, t0());
    store.insert_board(&first).await.unwrap();
    store.insert_board(&last).await.unwrap();

    assert!(!store.delete_board(other, last.id).await.unwrap());
    assert_eq!(store.board(team, last.id).await.unwrap(), Some(view(&last)));

    assert!(store.delete_board(team, last.id).await.unwrap());
    assert!(!store.delete_board(team, last.id).await.unwrap());
    assert_eq!(store.board(team, last.id).await.unwrap(), None);
    assert_eq!(store.boards(team, false).await.unwrap(), vec![view(&first)]);
    assert_eq!(store.next_board_order(team).await.unwrap(), 2);
    assert!(!store.board_slug_taken(team, "last").await.unwrap());
}

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
