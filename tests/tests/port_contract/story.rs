//! The storage story every adapter must tell the same way. Each check starts from an empty
//! store and pins one promise of `sounding_domain::ports`.

use sounding_tests::overwrite::Overwrite;
use std::{collections::BTreeSet, sync::Arc};

use serde_json::{json, Value};
use sounding_domain::{
    access::Role,
    api_key::{hash_key, ApiKey, ApiKeyGrant},
    board::{Board, BoardView},
    event::{EventKind, NewEvent, StoredEvent},
    feedback::{
        BoardRef, Feedback, FeedbackQuery, FeedbackReach, FeedbackScope, FeedbackSort,
        FeedbackStatus, FeedbackView, Priority,
    },
    feedback_comment::{CommentSort, CommentView, Direction, FeedbackComment},
    feedback_vote::{VoteAccess, VoteOutcome, VoteState},
    ids::{BoardId, FeedbackCommentId, FeedbackId, SubscriberId, TeamId},
    page::{PageRequest, Paged},
    ports::{Conflict, Store, StoreError},
    subscriber::{Identify, Subscriber, SubscriberRef, SubscriberSource},
    team::TeamPatch,
    timestamp::Timestamp,
};
use uuid::Uuid;

use crate::fixtures::{
    at, board, comment, comment_query, event, everything, feedback, identify, list_query,
    stored_feedback, stored_team, subscriber, t0, team_fixture, vote,
};

pub fn conflict(rule: Conflict) -> StoreError {
    StoreError::Conflict(rule)
}

fn view(board: &sounding_domain::board::Board) -> BoardView {
    BoardView {
        board: board.clone(),
        feedback_count: 0,
    }
}

/// An event as the outbox keeps it.
pub fn stored(event: &NewEvent) -> StoredEvent {
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
        TeamPatch::new(Some("Acme Inc"), Some(true), Some(true)).unwrap(),
        at("2026-03-05T00:00:00.001Z"),
    );
    store.save_team(&team).await.unwrap();
    assert_eq!(store.team(team.id).await.unwrap(), Some(team.clone()));
    assert_eq!(store.team_by_subdomain("acme").await.unwrap(), Some(team));

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
        Err(conflict(Conflict::BoardSlug))
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
    store.save_board(&renamed).await.unwrap();
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
        store.save_board(&clash).await,
        Err(conflict(Conflict::BoardSlug))
    );
    assert_eq!(
        store.board(team, bugs.id).await.unwrap(),
        Some(view(&bugs)),
        "a refused update changes nothing"
    );

    let mut moved = bugs.clone();
    moved.slug = "issues".into();
    store.save_board(&moved).await.unwrap();
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

// ---------------------------------------------------------------------------------------------
// Feedback: items, votes, comments, follows, lists, and what they do to boards and the outbox.

fn board_ref(board: &Board) -> BoardRef {
    BoardRef {
        id: board.id,
        name: board.name.clone(),
        slug: board.slug.clone(),
        is_public: board.meta.is_public,
    }
}

/// The stored view of an item that must exist.
async fn read(store: &dyn Store, item: &Feedback) -> FeedbackView {
    store
        .feedback(item.team_id, item.id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("feedback {} is stored", item.url_id))
}

/// The url ids of a list's page, in order, and its total.
async fn listed(store: &dyn Store, team: TeamId, query: &FeedbackQuery) -> (Vec<String>, i64) {
    let page = store.list_feedback(team, query).await.unwrap();
    assert_eq!(page.page, query.page, "the page answers the request");
    let ids = page
        .items
        .iter()
        .map(|v| v.feedback.url_id.clone())
        .collect();
    (ids, page.total)
}

fn url_ids(items: &[&Feedback]) -> Vec<String> {
    items.iter().map(|f| f.url_id.clone()).collect()
}

pub fn empty_page<T>(page: PageRequest) -> Paged<T> {
    Paged {
        items: Vec::new(),
        total: 0,
        page,
    }
}

pub async fn feedback_round_trips_with_board_creator_and_counts(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = board(team, "ideas", 1, t0());
    store.insert_board(&ideas).await.unwrap();
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let editor = subscriber(&*store, team, "editor@example.com").await;

    let created = at("2026-03-05T10:00:00.123Z");
    let mut item = feedback(team, Some(ideas.id), creator.id, "k3j9x0a2mq", created);
    item.title = "Dark mode ✨ for the ÉCLAIR app".into();
    item.text = "Please add \"dark\" mode.\nSoon — üñíçødé.".into();
    item.status = FeedbackStatus::Planned;
    item.priority = Priority::Urgent;
    item.kind = Some("idea".into());
    item.meta = json!({
        "source": "widget",
        "score": 1.5,
        "ints": [i64::MAX, i64::MIN],
        "nested": {"list": [1, {"deep": true}], "none": null},
    })
    .as_object()
    .unwrap()
    .clone();
    item.published_at = Some(created.plus_seconds(60));
    item.updated_at = at("2026-03-06T00:00:00.999Z");
    item.last_modified_by_id = Some(editor.id);
    store.insert_feedback(&item, &[], &[]).await.unwrap();

    let expected = FeedbackView {
        feedback: item.clone(),
        board: Some(board_ref(&ideas)),
        creator: Some(SubscriberRef::from(&creator)),
        last_modified_by: Some(SubscriberRef::from(&editor)),
        vote_count: 0,
        comment_count: 0,
        tags: Vec::new(),
    };
    assert_eq!(
        store.feedback(team, item.id).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        store.feedback_by_url_id(team, "k3j9x0a2mq").await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(store.feedback(other, item.id).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(other, "k3j9x0a2mq").await.unwrap(),
        None,
        "another team sees nothing"
    );
    assert_eq!(store.feedback(team, FeedbackId::new()).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(team, "k3j9x0a2mz").await.unwrap(),
        None
    );

    // No board, no editor, awaiting moderation and archived: the empty sides read back empty.
    let mut bare = feedback(team, None, creator.id, "bare000001", created);
    bare.published_at = None;
    bare.archived_at = Some(created.plus_seconds(5));
    store.insert_feedback(&bare, &[], &[]).await.unwrap();
    assert_eq!(
        read(&*store, &bare).await,
        FeedbackView {
            feedback: bare.clone(),
            board: None,
            creator: Some(SubscriberRef::from(&creator)),
            last_modified_by: None,
            vote_count: 0,
            comment_count: 0,
            tags: Vec::new(),
        }
    );

    // The counts follow the votes and comments, private comments included.
    for (voter, n) in [(&creator, 1), (&editor, 2)] {
        store
            .cast_vote(
                team,
                &vote(&item, voter.id, created.plus_seconds(n)),
                VoteAccess::Checked,
                &[],
            )
            .await
            .unwrap();
    }
    for (private, n) in [(false, 1), (true, 2)] {
        let c = comment(&item, editor.id, "+1", private, created.plus_seconds(n));
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    let counted = read(&*store, &item).await;
    assert_eq!((counted.vote_count, counted.comment_count), (2, 2));
    assert_eq!(
        counted,
        FeedbackView {
            vote_count: 2,
            comment_count: 2,
            ..expected.clone()
        }
    );
    let untouched = read(&*store, &bare).await;
    assert_eq!((untouched.vote_count, untouched.comment_count), (0, 0));

    // The board shown with the item is the board as it is now.
    let mut renamed = ideas.clone();
    renamed.name = "Ideas & wishes".into();
    renamed.slug = "wishes".into();
    renamed.meta.is_public = false;
    store.save_board(&renamed).await.unwrap();
    let now_private = read(&*store, &item).await;
    assert_eq!(now_private.board, Some(board_ref(&renamed)));
    assert!(!now_private.board.as_ref().unwrap().is_public);

    // Who may read an item, without the item: the view's answer, for each side of it.
    for (team_asking, id, reach) in [
        (
            team,
            item.id,
            Some(FeedbackReach {
                published: true,
                board_is_public: Some(false),
            }),
        ),
        (
            team,
            bare.id,
            Some(FeedbackReach {
                published: false,
                board_is_public: None,
            }),
        ),
        (other, item.id, None),
        (team, FeedbackId::new(), None),
    ] {
        assert_eq!(store.feedback_reach(team_asking, id).await.unwrap(), reach);
    }
    assert_eq!(
        now_private.reach(),
        FeedbackReach {
            published: true,
            board_is_public: Some(false),
        }
    );

    // Lists show the same views as single reads.
    let page = store
        .list_feedback(
            team,
            &list_query(
                FeedbackScope::Team {
                    include_archived: true,
                },
                FeedbackSort::Newest,
            ),
        )
        .await
        .unwrap();
    assert_eq!(page.total, 2);
    assert!(page.items.contains(&now_private));
    assert!(page.items.contains(&untouched));

    // A vote that leaves the check to the store lands only on an item anyone may read: not on
    // one of a private board, nor on one awaiting moderation, and nothing is written.
    let outsider = subscriber(&*store, team, "outsider@example.com").await;
    for hidden in [&item, &bare] {
        let refused = vote(hidden, outsider.id, created.plus_seconds(9));
        assert!(matches!(
            store
                .cast_vote(team, &refused, VoteAccess::Public, &[])
                .await
                .unwrap(),
            VoteOutcome::NotPublic(_)
        ));
    }
    let after = read(&*store, &item).await;
    assert_eq!(
        (after.vote_count, read(&*store, &bare).await.vote_count),
        (2, 0)
    );
    let open = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "open000001", created),
    )
    .await;
    let welcome = vote(&open, outsider.id, created.plus_seconds(9));
    assert_eq!(
        store
            .cast_vote(team, &welcome, VoteAccess::Public, &[])
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: welcome.clone(),
            total_votes: 1
        }
    );
}

pub async fn a_taken_url_id_is_a_conflict_and_writes_nothing(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let second = subscriber(&*store, team, "second@example.com").await;

    let first = feedback(team, None, creator.id, "taken00001", t0());
    let e1 = event(team, EventKind::FeedbacksCreate, t0(), 1);
    store
        .insert_feedback(&first, &[], std::slice::from_ref(&e1))
        .await
        .unwrap();

    let mut copy = feedback(team, None, second.id, "taken00001", t0().plus_seconds(1));
    let e2 = event(team, EventKind::FeedbacksCreate, t0().plus_seconds(1), 2);
    assert_eq!(
        store
            .insert_feedback(&copy, &[], std::slice::from_ref(&e2))
            .await,
        Err(conflict(Conflict::FeedbackUrlId))
    );
    assert_eq!(store.feedback(team, copy.id).await.unwrap(), None);
    assert_eq!(
        store
            .feedback_by_url_id(team, "taken00001")
            .await
            .unwrap()
            .map(|v| v.feedback),
        Some(first.clone()),
        "the first item keeps its url id"
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1)],
        "the refused item's events were not kept"
    );
    let all = list_query(
        FeedbackScope::Team {
            include_archived: true,
        },
        FeedbackSort::Newest,
    );
    assert_eq!(listed(&*store, team, &all).await, (url_ids(&[&first]), 1));

    // Another team may use the url id.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let elsewhere = feedback(other, None, outsider.id, "taken00001", t0());
    store.insert_feedback(&elsewhere, &[], &[]).await.unwrap();
    assert_eq!(
        store
            .feedback_by_url_id(other, "taken00001")
            .await
            .unwrap()
            .map(|v| v.feedback),
        Some(elsewhere)
    );

    // The store still works after the failed write, and the refused item left nothing behind.
    copy.url_id = "fresh00001".into();
    let e3 = event(team, EventKind::FeedbacksCreate, t0().plus_seconds(2), 3);
    store
        .insert_feedback(&copy, &[], std::slice::from_ref(&e3))
        .await
        .unwrap();
    assert_eq!(read(&*store, &copy).await.feedback, copy);
    assert_eq!(
        store.followers(team, copy.id).await.unwrap(),
        vec![second.id]
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e3)]
    );
}

pub async fn updates_replace_fields_and_append_events_only_when_found(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = board(team, "ideas", 1, t0());
    let bugs = board(team, "bugs", 2, t0());
    store.insert_board(&ideas).await.unwrap();
    store.insert_board(&bugs).await.unwrap();
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let editor = subscriber(&*store, team, "editor@example.com").await;

    let item = feedback(team, Some(ideas.id), creator.id, "upd0000001", t0());
    let e_create = event(team, EventKind::FeedbacksCreate, t0(), 1);
    store
        .insert_feedback(&item, &[], std::slice::from_ref(&e_create))
        .await
        .unwrap();
    store
        .cast_vote(
            team,
            &vote(&item, editor.id, t0().plus_seconds(1)),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    let remark = comment(&item, editor.id, "why?", false, t0().plus_seconds(2));
    assert!(store.insert_comment(&remark, &[]).await.unwrap());

    // Every field changes, the counts stay.
    let mut changed = item.clone();
    changed.board_id = Some(bugs.id);
    changed.url_id = "upd0000002".into();
    changed.title = "Crash on ÉCLAIR export".into();
    changed.text = "Steps:\n1. export\n2. 💥".into();
    changed.status = FeedbackStatus::Completed;
    changed.priority = Priority::Low;
    changed.kind = Some("bug".into());
    changed.meta = json!({"os": "linux", "versions": [1, 2.5]})
        .as_object()
        .unwrap()
        .clone();
    changed.published_at = None;
    changed.archived_at = Some(at("2026-03-07T08:09:10.011Z"));
    changed.updated_at = at("2026-03-07T08:09:10.012Z");
    changed.last_modified_by_id = Some(editor.id);
    let e_update = event(team, EventKind::FeedbacksUpdate, changed.updated_at, 2);
    assert!(store
        .save_feedback(&changed, std::slice::from_ref(&e_update))
        .await
        .unwrap());
    assert_eq!(
        read(&*store, &item).await,
        FeedbackView {
            feedback: changed.clone(),
            board: Some(board_ref(&bugs)),
            creator: Some(SubscriberRef::from(&creator)),
            last_modified_by: Some(SubscriberRef::from(&editor)),
            vote_count: 1,
            comment_count: 1,
            tags: Vec::new(),
        }
    );
    assert!(store
        .feedback_by_url_id(team, "upd0000002")
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        store.feedback_by_url_id(team, "upd0000001").await.unwrap(),
        None,
        "the old url id is free"
    );

    // Optional fields are cleared as well as set.
    let mut cleared = changed.clone();
    cleared.board_id = None;
    cleared.kind = None;
    cleared.meta = Default::default();
    cleared.published_at = Some(at("2026-03-08T00:00:00.001Z"));
    cleared.archived_at = None;
    cleared.last_modified_by_id = None;
    assert!(store.save_feedback(&cleared, &[]).await.unwrap());
    let view = read(&*store, &item).await;
    assert_eq!(view.feedback, cleared);
    assert_eq!((view.board, view.last_modified_by), (None, None));
    assert_eq!((view.vote_count, view.comment_count), (1, 1));

    // A missing item, or another team's, is not updated and its events are not kept.
    let ghost = feedback(team, None, creator.id, "ghost00001", t0());
    let e_ghost = event(team, EventKind::FeedbacksUpdate, t0(), 3);
    assert!(!store.save_feedback(&ghost, &[e_ghost]).await.unwrap());
    assert_eq!(store.feedback(team, ghost.id).await.unwrap(), None);
    let mut hijack = cleared.clone();
    hijack.team_id = other;
    hijack.title = "Hijacked".into();
    let e_hijack = event(other, EventKind::FeedbacksUpdate, t0(), 4);
    assert!(!store.save_feedback(&hijack, &[e_hijack]).await.unwrap());
    assert_eq!(read(&*store, &item).await.feedback, cleared);
    assert_eq!(store.feedback(other, item.id).await.unwrap(), None);

    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e_create), stored(&e_update)]
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn delete_removes_comments_votes_and_follows(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let commenter = subscriber(&*store, team, "commenter@example.com").await;
    let follower = subscriber(&*store, team, "follower@example.com").await;

    let item = feedback(team, None, creator.id, "gone000001", t0());
    let keep = feedback(team, None, creator.id, "keep000001", t0().plus_seconds(1));
    for f in [&item, &keep] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
        for (s, n) in [(&voter, 10), (&commenter, 11)] {
            store
                .cast_vote(
                    team,
                    &vote(f, s.id, t0().plus_seconds(n)),
                    VoteAccess::Checked,
                    &[],
                )
                .await
                .unwrap();
        }
        let c = comment(f, commenter.id, "me too", false, t0().plus_seconds(20));
        assert!(store.insert_comment(&c, &[]).await.unwrap());
        assert!(store
            .set_following(team, f.id, follower.id, true, t0().plus_seconds(3600))
            .await
            .unwrap());
    }
    let private = comment(&item, voter.id, "internal", true, t0().plus_seconds(30));
    assert!(store.insert_comment(&private, &[]).await.unwrap());

    let e_foreign = event(other, EventKind::FeedbacksDelete, t0(), 1);
    assert!(
        !store
            .delete_feedback(other, item.id, &[e_foreign])
            .await
            .unwrap(),
        "another team cannot delete it"
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);

    let e_delete = event(team, EventKind::FeedbacksDelete, t0().plus_seconds(60), 2);
    assert!(store
        .delete_feedback(team, item.id, std::slice::from_ref(&e_delete))
        .await
        .unwrap());
    assert_eq!(store.feedback(team, item.id).await.unwrap(), None);
    assert_eq!(
        store.feedback_by_url_id(team, "gone000001").await.unwrap(),
        None
    );
    assert_eq!(
        store
            .vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        None
    );
    let all_comments = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    assert_eq!(
        store.comments(team, item.id, &all_comments).await.unwrap(),
        empty_page(everything())
    );
    assert_eq!(store.followers(team, item.id).await.unwrap(), vec![]);
    assert_eq!(
        store.retract_vote(team, item.id, voter.id).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .cast_vote(
                team,
                &vote(&item, follower.id, t0()),
                VoteAccess::Checked,
                &[]
            )
            .await
            .unwrap(),
        VoteOutcome::NotFound
    );
    let late = comment(&item, follower.id, "late", false, t0().plus_seconds(90));
    assert!(!store.insert_comment(&late, &[]).await.unwrap());
    assert!(!store
        .set_following(team, item.id, follower.id, true, t0().plus_seconds(3600))
        .await
        .unwrap());
    let e_again = event(team, EventKind::FeedbacksDelete, t0().plus_seconds(61), 3);
    assert!(
        !store
            .delete_feedback(team, item.id, &[e_again])
            .await
            .unwrap(),
        "deleting twice finds nothing the second time"
    );
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e_delete)]);
    assert_eq!(store.events(other).await.unwrap(), vec![]);

    // The other item keeps all of its own.
    let kept = read(&*store, &keep).await;
    assert_eq!((kept.vote_count, kept.comment_count), (2, 1));
    assert_eq!(
        store.vote_state(team, keep.id, None).await.unwrap(),
        Some(VoteState {
            count: 2,
            vote: None
        })
    );
    assert_eq!(
        store
            .comments(team, keep.id, &all_comments)
            .await
            .unwrap()
            .total,
        1
    );
    assert_eq!(
        store.followers(team, keep.id).await.unwrap(),
        vec![creator.id, commenter.id, follower.id]
    );

    // Nothing of the deleted item survived: stored again, it starts empty.
    store.insert_feedback(&item, &[], &[]).await.unwrap();
    let fresh = read(&*store, &item).await;
    assert_eq!((fresh.vote_count, fresh.comment_count), (0, 0));
    assert_eq!(
        store
            .vote_state(team, item.id, Some(voter.id))
            .await
            .unwrap(),
        Some(VoteState {
            count: 0,
            vote: None
        })
    );
    assert_eq!(
        store.comments(team, item.id, &all_comments).await.unwrap(),
        empty_page(everything())
    );
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id]
    );
    let again = vote(&item, voter.id, t0().plus_seconds(120));
    assert_eq!(
        store
            .cast_vote(team, &again, VoteAccess::Checked, &[])
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: again.clone(),
            total_votes: 1
        }
    );
}

pub async fn votes_are_one_per_subscriber_and_counted(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let s1 = subscriber(&*store, team, "s1@example.com").await;
    let s2 = subscriber(&*store, team, "s2@example.com").await;
    let s3 = subscriber(&*store, team, "s3@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "vote000001", t0()),
    )
    .await;
    let second = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "vote000002", t0()),
    )
    .await;

    let v1 = vote(&item, s1.id, at("2026-03-05T00:00:00.001Z"));
    let e1 = event(team, EventKind::NewFeedbackVote, v1.created_at, 1);
    assert_eq!(
        store
            .cast_vote(team, &v1, VoteAccess::Checked, std::slice::from_ref(&e1))
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: v1.clone(),
            total_votes: 1
        }
    );
    let v2 = vote(&item, s2.id, at("2026-03-05T00:00:00.002Z"));
    let e2 = event(team, EventKind::NewFeedbackVote, v2.created_at, 2);
    assert_eq!(
        store
            .cast_vote(team, &v2, VoteAccess::Checked, std::slice::from_ref(&e2))
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: v2.clone(),
            total_votes: 2
        }
    );

    // A second vote of s1 is refused and writes nothing.
    let repeat = vote(&item, s1.id, at("2026-03-06T00:00:00.003Z"));
    let e_repeat = event(team, EventKind::NewFeedbackVote, repeat.created_at, 3);
    assert_eq!(
        store
            .cast_vote(team, &repeat, VoteAccess::Checked, &[e_repeat])
            .await
            .unwrap(),
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
        store
            .cast_vote(
                other,
                &vote(&item, s3.id, t0()),
                VoteAccess::Checked,
                &[e_foreign]
            )
            .await
            .unwrap(),
        VoteOutcome::NotFound
    );
    assert_eq!(store.vote_state(other, item.id, None).await.unwrap(), None);
    let missing = feedback(team, None, creator.id, "missing001", t0());
    let e_missing = event(team, EventKind::NewFeedbackVote, t0(), 5);
    assert_eq!(
        store
            .cast_vote(
                team,
                &vote(&missing, s3.id, t0()),
                VoteAccess::Checked,
                &[e_missing]
            )
            .await
            .unwrap(),
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
        store
            .cast_vote(team, &on_second, VoteAccess::Checked, &[])
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: on_second,
            total_votes: 1
        }
    );
    assert_eq!(read(&*store, &item).await.vote_count, 2);
}

pub async fn concurrent_votes_are_all_counted(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "race000001", t0()),
    )
    .await;
    let mut voters = Vec::new();
    for i in 0..50 {
        voters.push(subscriber(&*store, team, &format!("voter{i}@example.com")).await);
    }

    let tasks: Vec<_> = voters
        .iter()
        .enumerate()
        .map(|(i, voter)| {
            let store = store.clone();
            let v = vote(&item, voter.id, t0().plus_seconds(i as i64));
            let e = event(team, EventKind::NewFeedbackVote, v.created_at, i as i64);
            tokio::spawn(async move {
                store
                    .cast_vote(team, &v, VoteAccess::Checked, &[e])
                    .await
                    .unwrap()
            })
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
    let team = stored_team(&*store, "acme").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "race000002", t0()),
    )
    .await;
    let mut voters = Vec::new();
    for i in 0..10 {
        voters.push(subscriber(&*store, team, &format!("voter{i}@example.com")).await);
    }

    // Every voter votes five times at once.
    let tasks: Vec<_> = (0..5)
        .flat_map(|round| voters.iter().map(move |voter| (round, voter.id)))
        .map(|(round, voter)| {
            let store = store.clone();
            let v = vote(&item, voter, t0().plus_seconds(round));
            let e = event(team, EventKind::NewFeedbackVote, v.created_at, round);
            tokio::spawn(async move {
                store
                    .cast_vote(team, &v, VoteAccess::Checked, &[e])
                    .await
                    .unwrap()
            })
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
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let s1 = subscriber(&*store, team, "s1@example.com").await;
    let s2 = subscriber(&*store, team, "s2@example.com").await;
    let s3 = subscriber(&*store, team, "s3@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "back000001", t0()),
    )
    .await;
    for s in [&s1, &s2] {
        store
            .cast_vote(team, &vote(&item, s.id, t0()), VoteAccess::Checked, &[])
            .await
            .unwrap();
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
        store
            .cast_vote(team, &again, VoteAccess::Checked, &[])
            .await
            .unwrap(),
        VoteOutcome::Cast {
            vote: again.clone(),
            total_votes: 2
        }
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

pub async fn comments_are_paged_sorted_and_private_ones_filtered(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "talk000001", t0()),
    )
    .await;
    let elsewhere = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "talk000002", t0()),
    )
    .await;

    let t = |n: u32| at(&format!("2026-03-05T00:00:0{n}.00{n}Z"));
    let made = |id: u128, author: &Subscriber, private: bool, created: u32, updated: u32| {
        let mut c = comment(
            &item,
            author.id,
            &format!("comment {id}"),
            private,
            t(created),
        );
        c.id = FeedbackCommentId(Uuid::from_u128(id));
        c.updated_at = t(updated);
        c
    };
    // c_a and c_b were written at the same instant (the id decides); c_b and c_c were last
    // edited at the same instant.
    let c_a = made(1, &a, false, 1, 5);
    let c_b = made(9, &b, false, 1, 2);
    let c_c = made(5, &a, true, 2, 2);
    let c_d = made(3, &b, false, 3, 3);
    let c_e = made(7, &a, false, 4, 4);
    let mut appended = Vec::new();
    for (n, c) in [&c_d, &c_b, &c_e, &c_a, &c_c].into_iter().enumerate() {
        let e = event(
            team,
            EventKind::FeedbackCommentsCreate,
            c.created_at,
            n as i64,
        );
        assert!(store
            .insert_comment(c, std::slice::from_ref(&e))
            .await
            .unwrap());
        appended.push(stored(&e));
    }
    let noise = comment(&elsewhere, b.id, "not here", false, t(1));
    assert!(store.insert_comment(&noise, &[]).await.unwrap());

    let author_of = |c: &FeedbackComment| {
        Some(SubscriberRef::from(if c.subscriber_id == a.id {
            &a
        } else {
            &b
        }))
    };
    let views = |comments: &[&FeedbackComment]| -> Vec<CommentView> {
        comments
            .iter()
            .map(|c| CommentView {
                comment: (*c).clone(),
                author: author_of(c),
            })
            .collect()
    };
    let item_id = item.id;
    let list = |private: bool, sort: CommentSort, direction: Direction, page: PageRequest| {
        let store = store.clone();
        async move {
            let mut query = comment_query(private, sort, direction);
            query.page = page;
            store.comments(team, item_id, &query).await.unwrap()
        }
    };
    let all = everything();
    let paged =
        |items: Vec<CommentView>, total: i64, page: PageRequest| Paged { items, total, page };

    assert_eq!(
        list(false, CommentSort::CreatedAt, Direction::Asc, all).await,
        paged(views(&[&c_a, &c_b, &c_d, &c_e]), 4, all),
        "public comments, oldest first, the id breaking the tie"
    );
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, all).await,
        paged(views(&[&c_a, &c_b, &c_c, &c_d, &c_e]), 5, all),
        "private comments too when asked"
    );
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Desc, all).await,
        paged(views(&[&c_e, &c_d, &c_c, &c_b, &c_a]), 5, all),
        "descending reverses the tie too"
    );
    assert_eq!(
        list(true, CommentSort::UpdatedAt, Direction::Asc, all).await,
        paged(views(&[&c_c, &c_b, &c_d, &c_e, &c_a]), 5, all)
    );
    assert_eq!(
        list(false, CommentSort::UpdatedAt, Direction::Desc, all).await,
        paged(views(&[&c_a, &c_e, &c_d, &c_b]), 4, all)
    );

    let window = PageRequest {
        limit: 2,
        offset: 1,
    };
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, window).await,
        paged(views(&[&c_b, &c_c]), 5, window)
    );
    let tail = PageRequest {
        limit: 2,
        offset: 4,
    };
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, tail).await,
        paged(views(&[&c_e]), 5, tail)
    );
    let past = PageRequest {
        limit: 10,
        offset: 10,
    };
    assert_eq!(
        list(false, CommentSort::CreatedAt, Direction::Asc, past).await,
        paged(vec![], 4, past),
        "past the end: no items, the total still counts"
    );

    let counted = read(&*store, &item).await;
    assert_eq!(
        counted.comment_count, 5,
        "private comments count on the item"
    );
    assert_eq!(read(&*store, &elsewhere).await.comment_count, 1);

    // Another team, or a missing item, has no comments; a comment on either is refused.
    let query = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    assert_eq!(
        store.comments(other, item.id, &query).await.unwrap(),
        empty_page(all)
    );
    assert_eq!(
        store
            .comments(team, FeedbackId::new(), &query)
            .await
            .unwrap(),
        empty_page(all)
    );
    let missing = feedback(team, None, creator.id, "missing001", t0());
    let e_missing = event(team, EventKind::FeedbackCommentsCreate, t0(), 90);
    assert!(!store
        .insert_comment(&comment(&missing, a.id, "lost", false, t0()), &[e_missing])
        .await
        .unwrap());
    let mut foreign = comment(&item, a.id, "wrong team", false, t0());
    foreign.team_id = other;
    let e_foreign = event(other, EventKind::FeedbackCommentsCreate, t0(), 91);
    assert!(!store.insert_comment(&foreign, &[e_foreign]).await.unwrap());
    assert_eq!(read(&*store, &item).await.comment_count, 5);
    assert_eq!(store.events(team).await.unwrap(), appended);
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn following_is_idempotent_and_creators_and_commenters_follow(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let created = at("2026-03-05T00:00:00.001Z");
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "flw0000001", created),
    )
    .await;
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id],
        "the creator follows"
    );

    let say = |who: &Subscriber, secs: i64| {
        comment(&item, who.id, "hi", false, created.plus_seconds(secs))
    };
    assert!(store.insert_comment(&say(&a, 60), &[]).await.unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "a commenter follows"
    );
    assert!(store.insert_comment(&say(&a, 120), &[]).await.unwrap());
    assert!(store
        .insert_comment(&say(&creator, 180), &[])
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "commenting again does not follow twice"
    );

    assert!(store
        .set_following(team, item.id, b.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert!(store
        .set_following(team, item.id, b.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id]
    );
    assert!(store
        .set_following(team, item.id, a.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id],
        "following again keeps the first follow's place"
    );

    assert!(store
        .set_following(team, item.id, a.id, false, t0())
        .await
        .unwrap());
    assert!(store
        .set_following(team, item.id, a.id, false, t0())
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id]
    );
    assert!(store
        .set_following(team, item.id, a.id, true, created.plus_seconds(7200))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id, a.id],
        "a new follow goes last"
    );
    assert!(store
        .set_following(team, item.id, creator.id, false, t0())
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![b.id, a.id],
        "the creator may stop following"
    );

    // Another team's item, or a missing one, cannot be followed.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    assert!(!store
        .set_following(
            other,
            item.id,
            outsider.id,
            true,
            created.plus_seconds(3600)
        )
        .await
        .unwrap());
    assert!(!store
        .set_following(other, item.id, b.id, false, t0())
        .await
        .unwrap());
    assert!(!store
        .set_following(
            team,
            FeedbackId::new(),
            b.id,
            true,
            created.plus_seconds(3600)
        )
        .await
        .unwrap());
    assert_eq!(store.followers(other, item.id).await.unwrap(), vec![]);
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![b.id, a.id]
    );

    // Two commenters who start following at the same instant are ordered by id.
    let second = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "flw0000002", created),
    )
    .await;
    let (low, high) = if a.id < b.id { (&a, &b) } else { (&b, &a) };
    let same = created.plus_seconds(30);
    for who in [high, low] {
        let c = comment(&second, who.id, "same time", false, same);
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    assert_eq!(
        store.followers(team, second.id).await.unwrap(),
        vec![creator.id, low.id, high.id]
    );
}

pub async fn lists_filter_by_scope_status_board_and_search(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let lonely = stored_team(&*store, "lonely").await.team.id;
    let open = board(team, "open", 1, t0());
    let mut closed = board(team, "closed", 2, t0());
    closed.meta.is_public = false;
    store.insert_board(&open).await.unwrap();
    store.insert_board(&closed).await.unwrap();
    let creator = subscriber(&*store, team, "creator@example.com").await;

    let mut n = 0;
    let mut item = |board: Option<&Board>, url_id: &str, title: &str, text: &str| {
        n += 1;
        let mut f = feedback(
            team,
            board.map(|b| b.id),
            creator.id,
            url_id,
            t0().plus_seconds(n * 60),
        );
        f.title = title.into();
        f.text = text.into();
        f
    };
    let a = item(None, "aaaaaaaaaa", "Dark mode", "at night");
    let mut b = item(Some(&open), "bbbbbbbbbb", "ÉCLAIR export", "to PDF");
    b.status = FeedbackStatus::Planned;
    let mut c = item(Some(&closed), "cccccccccc", "Private roadmap", "");
    c.status = FeedbackStatus::Planned;
    let mut d = item(Some(&open), "dddddddddd", "Awaiting moderation", "");
    d.published_at = None;
    let mut e = item(Some(&open), "eeeeeeeeee", "Old and archived", "");
    e.status = FeedbackStatus::Completed;
    e.archived_at = Some(t0().plus_seconds(3600));
    let mut f = item(
        None,
        "ffffffffff",
        "100% faster_sync",
        "Make sync 100% FASTER",
    );
    f.status = FeedbackStatus::Closed;
    // Would match `100%` and `faster_sync` if `%` and `_` were wildcards.
    let mut g = item(
        Some(&open),
        "gggggggggg",
        "Plain",
        "100 percent fasterXsync",
    );
    g.status = FeedbackStatus::InProgress;
    for x in [&a, &b, &c, &d, &e, &f, &g] {
        store.insert_feedback(x, &[], &[]).await.unwrap();
    }
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let mut h = feedback(other, None, outsider.id, "hhhhhhhhhh", t0());
    h.title = "Dark mode".into();
    store.insert_feedback(&h, &[], &[]).await.unwrap();

    let public = FeedbackScope::Public;
    let team_scope = FeedbackScope::Team {
        include_archived: false,
    };
    let everything_scope = FeedbackScope::Team {
        include_archived: true,
    };
    let q = |scope: FeedbackScope| list_query(scope, FeedbackSort::Newest);
    let expect = |items: &[&Feedback]| (url_ids(items), items.len() as i64);

    assert_eq!(
        listed(&*store, team, &q(public)).await,
        expect(&[&g, &f, &b, &a]),
        "public: published, not archived, on a public board or none"
    );
    assert_eq!(
        listed(&*store, team, &q(team_scope)).await,
        expect(&[&g, &f, &d, &c, &b, &a])
    );
    assert_eq!(
        listed(&*store, team, &q(everything_scope)).await,
        expect(&[&g, &f, &e, &d, &c, &b, &a])
    );
    assert_eq!(
        listed(&*store, lonely, &q(everything_scope)).await,
        (vec![], 0)
    );
    assert_eq!(listed(&*store, other, &q(public)).await, expect(&[&h]));

    let mut planned = q(everything_scope);
    planned.statuses = vec![FeedbackStatus::Planned];
    assert_eq!(listed(&*store, team, &planned).await, expect(&[&c, &b]));
    let mut two = q(public);
    two.statuses = vec![FeedbackStatus::Closed, FeedbackStatus::Planned];
    assert_eq!(listed(&*store, team, &two).await, expect(&[&f, &b]));

    let mut on_open = q(everything_scope);
    on_open.board_id = Some(open.id);
    assert_eq!(
        listed(&*store, team, &on_open).await,
        expect(&[&g, &e, &d, &b])
    );
    let mut on_closed = q(public);
    on_closed.board_id = Some(closed.id);
    assert_eq!(listed(&*store, team, &on_closed).await, (vec![], 0));
    let mut on_closed_team = q(team_scope);
    on_closed_team.board_id = Some(closed.id);
    assert_eq!(listed(&*store, team, &on_closed_team).await, expect(&[&c]));

    let search = |scope: FeedbackScope, term: &str| {
        let mut query = q(scope);
        query.search = Some(term.into());
        query
    };
    assert_eq!(
        listed(&*store, team, &search(team_scope, "éclair")).await,
        expect(&[&b]),
        "non-ASCII titles fold to lowercase"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "dark")).await,
        expect(&[&a]),
        "another team's items are never searched"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "to pdf")).await,
        expect(&[&b]),
        "the text is searched too"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "100% faster")).await,
        expect(&[&f]),
        "`%` matches itself only"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "faster_sync")).await,
        expect(&[&f]),
        "`_` matches itself only"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "%")).await,
        expect(&[&f])
    );
    assert_eq!(
        listed(&*store, team, &search(public, "_")).await,
        expect(&[&f])
    );
    assert_eq!(
        listed(&*store, team, &search(public, "\\")).await,
        (vec![], 0),
        "a backslash is no escape of the term's"
    );
    assert_eq!(
        listed(&*store, team, &search(public, "roadmap")).await,
        (vec![], 0),
        "search stays within the scope"
    );
    assert_eq!(
        listed(&*store, team, &search(everything_scope, "archived")).await,
        expect(&[&e])
    );

    let mut combined = search(public, "plain");
    combined.board_id = Some(open.id);
    combined.statuses = vec![FeedbackStatus::InProgress];
    assert_eq!(listed(&*store, team, &combined).await, expect(&[&g]));
    combined.statuses = vec![FeedbackStatus::InReview];
    assert_eq!(listed(&*store, team, &combined).await, (vec![], 0));

    // Pages are cut from the whole selection; the total counts all of it.
    let mut window = q(everything_scope);
    window.page = PageRequest {
        limit: 3,
        offset: 2,
    };
    assert_eq!(
        listed(&*store, team, &window).await,
        (url_ids(&[&e, &d, &c]), 7)
    );
    window.page = PageRequest {
        limit: 5,
        offset: 100,
    };
    assert_eq!(listed(&*store, team, &window).await, (vec![], 7));
    let mut first = search(public, "a");
    first.page = PageRequest {
        limit: 1,
        offset: 0,
    };
    assert_eq!(
        listed(&*store, team, &first).await,
        (url_ids(&[&g]), 4),
        "the total counts every match, not the page"
    );
}

pub async fn lists_sort_newest_top_and_trending(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let mut voters = Vec::new();
    for i in 0..5 {
        voters.push(subscriber(&*store, team, &format!("voter{i}@example.com")).await);
    }
    let since = at("2026-03-10T00:00:00.000Z");
    let before = at("2026-03-09T23:59:59.999Z");
    let after = at("2026-03-11T12:00:00.500Z");

    let make = |url_id: &str, created: &str| feedback(team, None, creator.id, url_id, at(created));
    let old_popular = make("oldpopular", "2026-03-01T00:00:00.000Z");
    let recent_one = make("recentone1", "2026-03-02T00:00:00.000Z");
    // Older than recent_one: it leads trending only if its private comment counts.
    let commented = make("commented1", "2026-03-01T12:00:00.000Z");
    let mut tie_low = make("tielow0001", "2026-03-04T00:00:00.000Z");
    tie_low.id = FeedbackId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let mut tie_high = make("tiehigh001", "2026-03-04T00:00:00.000Z");
    tie_high.id = FeedbackId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let quiet_new = make("quietnew01", "2026-03-05T00:00:00.000Z");
    let boundary = make("boundary01", "2026-02-25T00:00:00.000Z");
    let quiet_old = make("quietold01", "2026-02-20T00:00:00.000Z");
    for f in [
        &quiet_old,
        &tie_high,
        &old_popular,
        &boundary,
        &quiet_new,
        &commented,
        &tie_low,
        &recent_one,
    ] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
    }
    // old_popular: five votes, all before the window.
    for (i, voter) in voters.iter().enumerate() {
        let v = vote(
            &old_popular,
            voter.id,
            before.plus_seconds(-(i as i64) * 3600),
        );
        store
            .cast_vote(team, &v, VoteAccess::Checked, &[])
            .await
            .unwrap();
    }
    // recent_one: one vote in the window.
    store
        .cast_vote(
            team,
            &vote(&recent_one, voters[0].id, after),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    // boundary: one vote exactly at the window's start, which counts.
    store
        .cast_vote(
            team,
            &vote(&boundary, voters[1].id, since),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    // commented: an old vote, and two comments in the window (one private; both count).
    store
        .cast_vote(
            team,
            &vote(&commented, voters[2].id, before),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();
    for private in [false, true] {
        let c = comment(&commented, voters[3].id, "agreed", private, after);
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    // Activity in another team does not count here.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    let foreign = stored_feedback(
        &*store,
        feedback(other, None, outsider.id, "foreign001", t0()),
    )
    .await;
    store
        .cast_vote(
            other,
            &vote(&foreign, outsider.id, after),
            VoteAccess::Checked,
            &[],
        )
        .await
        .unwrap();

    let scope = FeedbackScope::Team {
        include_archived: false,
    };
    let sorted = |sort: FeedbackSort| {
        let mut query = list_query(scope, sort);
        query.trending_since = since;
        query
    };
    let expect = |items: &[&Feedback]| (url_ids(items), items.len() as i64);

    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Newest)).await,
        expect(&[
            &quiet_new,
            &tie_high,
            &tie_low,
            &recent_one,
            &commented,
            &old_popular,
            &boundary,
            &quiet_old,
        ]),
        "newest: creation time, then id, descending"
    );
    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Top)).await,
        expect(&[
            &old_popular,
            &recent_one,
            &commented,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &quiet_old,
        ]),
        "top: votes, then newest"
    );
    assert_eq!(
        listed(&*store, team, &sorted(FeedbackSort::Trending)).await,
        expect(&[
            &commented,
            &recent_one,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &old_popular,
            &quiet_old,
        ]),
        "trending: votes and comments in the window, then newest"
    );
    let mut all_time = sorted(FeedbackSort::Trending);
    all_time.trending_since = at("2000-01-01T00:00:00.000Z");
    assert_eq!(
        listed(&*store, team, &all_time).await,
        expect(&[
            &old_popular,
            &commented,
            &recent_one,
            &boundary,
            &quiet_new,
            &tie_high,
            &tie_low,
            &quiet_old,
        ]),
        "a window covering everything counts every vote and comment"
    );
    let mut nothing_recent = sorted(FeedbackSort::Trending);
    nothing_recent.trending_since = at("2027-01-01T00:00:00.000Z");
    assert_eq!(
        listed(&*store, team, &nothing_recent).await,
        listed(&*store, team, &sorted(FeedbackSort::Newest)).await,
        "without recent activity trending falls back to newest"
    );

    let mut page = sorted(FeedbackSort::Trending);
    page.page = PageRequest {
        limit: 3,
        offset: 1,
    };
    assert_eq!(
        listed(&*store, team, &page).await,
        (url_ids(&[&recent_one, &boundary, &quiet_new]), 8)
    );
    let mut top_page = sorted(FeedbackSort::Top);
    top_page.page = PageRequest {
        limit: 3,
        offset: 0,
    };
    let top = store.list_feedback(team, &top_page).await.unwrap();
    assert_eq!(
        top.items
            .iter()
            .map(|v| (v.feedback.url_id.as_str(), v.vote_count, v.comment_count))
            .collect::<Vec<_>>(),
        vec![
            ("oldpopular", 5, 0),
            ("recentone1", 1, 0),
            ("commented1", 1, 2)
        ]
    );
}

pub async fn board_feedback_count_and_delete_refusal(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ideas = board(team, "ideas", 1, t0());
    let empty = board(team, "empty", 2, t0());
    store.insert_board(&ideas).await.unwrap();
    store.insert_board(&empty).await.unwrap();
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let count = |views: Vec<BoardView>| -> Vec<(String, i64)> {
        views
            .into_iter()
            .map(|v| (v.board.slug, v.feedback_count))
            .collect()
    };
    let counts = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
        pairs.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
    };
    assert_eq!(
        count(store.boards(team, false).await.unwrap()),
        counts(&[("ideas", 0), ("empty", 0)])
    );

    let published = feedback(team, Some(ideas.id), creator.id, "onboard001", t0());
    let mut pending = feedback(team, Some(ideas.id), creator.id, "onboard002", t0());
    pending.published_at = None;
    let mut archived = feedback(team, Some(ideas.id), creator.id, "onboard003", t0());
    archived.archived_at = Some(t0().plus_seconds(1));
    let boardless = feedback(team, None, creator.id, "noboard001", t0());
    for f in [&published, &pending, &archived, &boardless] {
        store.insert_feedback(f, &[], &[]).await.unwrap();
    }

    assert_eq!(
        count(store.boards(team, false).await.unwrap()),
        counts(&[("ideas", 2), ("empty", 0)]),
        "archived items are not counted, unpublished ones are"
    );
    assert_eq!(
        count(store.boards(team, true).await.unwrap()),
        counts(&[("ideas", 2), ("empty", 0)])
    );
    assert_eq!(
        store.board(team, ideas.id).await.unwrap(),
        Some(BoardView {
            board: ideas.clone(),
            feedback_count: 2
        })
    );

    assert_eq!(
        store.delete_board(team, ideas.id).await,
        Err(conflict(Conflict::BoardNotEmpty))
    );
    assert_eq!(
        store
            .board(team, ideas.id)
            .await
            .unwrap()
            .map(|v| v.feedback_count),
        Some(2),
        "the refused delete removed nothing"
    );
    assert_eq!(
        read(&*store, &published).await.board,
        Some(board_ref(&ideas))
    );
    assert!(
        !store.delete_board(other, ideas.id).await.unwrap(),
        "another team finds no board to delete"
    );
    assert!(store.delete_board(team, empty.id).await.unwrap());

    // Only archived feedback left: not counted, but still holding the board.
    for f in [&published, &pending] {
        assert!(store.delete_feedback(team, f.id, &[]).await.unwrap());
    }
    assert_eq!(
        store
            .board(team, ideas.id)
            .await
            .unwrap()
            .map(|v| v.feedback_count),
        Some(0)
    );
    assert_eq!(
        store.delete_board(team, ideas.id).await,
        Err(conflict(Conflict::BoardNotEmpty))
    );

    // Moved off the board, the board may go.
    let mut moved = archived.clone();
    moved.board_id = None;
    assert!(store.save_feedback(&moved, &[]).await.unwrap());
    assert!(store.delete_board(team, ideas.id).await.unwrap());
    assert_eq!(store.board(team, ideas.id).await.unwrap(), None);
    assert_eq!(store.boards(team, false).await.unwrap(), vec![]);
    assert_eq!(read(&*store, &archived).await.feedback, moved);
}

pub async fn events_are_appended_with_the_writes(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let voter = subscriber(&*store, team, "voter@example.com").await;
    let at_n = |n: i64| t0().plus_seconds(n);

    let item = feedback(team, None, creator.id, "evts000001", at_n(0));
    let e1 = event(team, EventKind::NewFeedback, at_n(0), 1);
    let e2 = event(team, EventKind::FeedbacksCreate, at_n(0), 2);
    store
        .insert_feedback(&item, &[], &[e1.clone(), e2.clone()])
        .await
        .unwrap();

    let mut changed = item.clone();
    changed.status = FeedbackStatus::Planned;
    changed.updated_at = at_n(1);
    let e3 = event(team, EventKind::FeedbackStatusChange, at_n(1), 3);
    let e4 = event(team, EventKind::FeedbacksUpdate, at_n(1), 4);
    assert!(store
        .save_feedback(&changed, &[e3.clone(), e4.clone()])
        .await
        .unwrap());

    let v = vote(&item, voter.id, at_n(2));
    let e5 = event(team, EventKind::NewFeedbackVote, at_n(2), 5);
    store
        .cast_vote(team, &v, VoteAccess::Checked, std::slice::from_ref(&e5))
        .await
        .unwrap();

    let c = comment(&item, voter.id, "nice", false, at_n(3));
    let e6 = event(team, EventKind::FeedbackCommentsCreate, at_n(3), 6);
    assert!(store
        .insert_comment(&c, std::slice::from_ref(&e6))
        .await
        .unwrap());

    // Writes that do nothing append nothing.
    let refused = |n: i64| vec![event(team, EventKind::FeedbacksUpdate, at_n(n), n)];
    assert_eq!(
        store
            .cast_vote(
                team,
                &vote(&item, voter.id, at_n(4)),
                VoteAccess::Checked,
                &refused(100)
            )
            .await
            .unwrap(),
        VoteOutcome::AlreadyVoted
    );
    let clash = feedback(team, None, creator.id, "evts000001", at_n(5));
    assert!(store
        .insert_feedback(&clash, &[], &refused(101))
        .await
        .is_err());
    let ghost = feedback(team, None, creator.id, "ghost00001", at_n(6));
    assert!(!store.save_feedback(&ghost, &refused(102)).await.unwrap());
    assert!(!store
        .delete_feedback(team, ghost.id, &refused(103))
        .await
        .unwrap());
    assert_eq!(
        store
            .cast_vote(
                team,
                &vote(&ghost, voter.id, at_n(7)),
                VoteAccess::Checked,
                &refused(104)
            )
            .await
            .unwrap(),
        VoteOutcome::NotFound
    );
    assert!(!store
        .insert_comment(
            &comment(&ghost, voter.id, "nope", false, at_n(8)),
            &refused(105)
        )
        .await
        .unwrap());

    let e7 = event(team, EventKind::FeedbacksDelete, at_n(9), 7);
    assert!(store
        .delete_feedback(team, item.id, std::slice::from_ref(&e7))
        .await
        .unwrap());

    assert_eq!(
        store.events(team).await.unwrap(),
        [&e1, &e2, &e3, &e4, &e5, &e6, &e7].map(stored).to_vec(),
        "each write's events, in the order they were written"
    );
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}
