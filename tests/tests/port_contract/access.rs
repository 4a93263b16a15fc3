//! Team administration (issue 6): users with the last-owner rule, a team's keys and their use
//! stamps, and the subscriber list, update and erase — the same on every adapter.

use std::sync::Arc;

use serde_json::json;
use sounding_domain::{
    access::{Role, TeamUser},
    api_key::ApiKey,
    ids::{ApiKeyId, SubscriberId, UserId},
    meta,
    page::PageRequest,
    ports::{Conflict, Store, StoreError},
    team_admin::{SubscriberPatch, SubscriberQuery, DELETED_SUBSCRIBER_NAME},
};

use crate::fixtures::{identify, stored_team, subscriber, t0};

fn user(team: &sounding_domain::team::Team, email: &str, role: Role) -> TeamUser {
    TeamUser {
        id: UserId::new(),
        team_id: team.id,
        email: email.into(),
        name: email.into(),
        role,
        created_at: t0(),
    }
}

fn last_owner() -> StoreError {
    StoreError::Conflict(Conflict::LastOwner)
}

pub async fn users_are_added_once_and_the_last_owner_stays(store: Arc<dyn Store>) {
    let f = stored_team(&*store, "users").await;
    let other = stored_team(&*store, "users-other").await;
    let admin = user(&f.team, "admin@x.io", Role::Admin);
    store.insert_user(&admin).await.unwrap();
    assert_eq!(
        store
            .insert_user(&user(&f.team, "admin@x.io", Role::Member))
            .await,
        Err(StoreError::Conflict(Conflict::UserEmail))
    );
    assert_eq!(store.users(f.team.id).await.unwrap().len(), 2);
    assert_eq!(
        store.user(f.team.id, admin.id).await.unwrap(),
        Some(admin.clone())
    );
    assert_eq!(store.user(other.team.id, admin.id).await.unwrap(), None);

    // The only owner can be neither demoted nor removed; nothing changes.
    assert_eq!(
        store
            .set_user_role(f.team.id, f.owner.id, Role::Admin)
            .await,
        Err(last_owner())
    );
    assert_eq!(
        store.delete_user(f.team.id, f.owner.id).await,
        Err(last_owner())
    );
    assert_eq!(
        store
            .user(f.team.id, f.owner.id)
            .await
            .unwrap()
            .unwrap()
            .role,
        Role::Owner
    );
    // With a second owner, the first may step down.
    let promoted = store
        .set_user_role(f.team.id, admin.id, Role::Owner)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(promoted.role, Role::Owner);
    assert_eq!(
        store
            .set_user_role(f.team.id, f.owner.id, Role::Member)
            .await
            .unwrap()
            .unwrap()
            .role,
        Role::Member
    );
    // Another team's user is not found; a missing one neither.
    assert_eq!(
        store
            .set_user_role(other.team.id, admin.id, Role::Member)
            .await,
        Ok(None)
    );
    assert_eq!(store.delete_user(f.team.id, UserId::new()).await, Ok(false));
}

pub async fn concurrent_owner_demotions_keep_one_owner(store: Arc<dyn Store>) {
    let f = stored_team(&*store, "owners").await;
    let second = user(&f.team, "second@x.io", Role::Owner);
    store.insert_user(&second).await.unwrap();
    let (a, b) = tokio::join!(
        store.set_user_role(f.team.id, f.owner.id, Role::Admin),
        store.set_user_role(f.team.id, second.id, Role::Admin),
    );
    let refused = [&a, &b]
        .iter()
        .filter(|r| ***r == Err(last_owner()))
        .count();
    assert_eq!(refused, 1, "exactly one demotion wins: {a:?} {b:?}");
    let owners = store
        .users(f.team.id)
        .await
        .unwrap()
        .into_iter()
        .filter(|u| u.role == Role::Owner)
        .count();
    assert_eq!(owners, 1);
}

pub async fn deleting_a_user_removes_their_keys(store: Arc<dyn Store>) {
    let f = stored_team(&*store, "keys-user").await;
    let member = user(&f.team, "m@x.io", Role::Member);
    store.insert_user(&member).await.unwrap();
    let (key, secret) = ApiKey::new(f.team.id, member.id, Role::Member, false, None, t0());
    store.insert_api_key(&key).await.unwrap();
    assert!(store
        .api_key_by_hash(&secret.hash())
        .await
        .unwrap()
        .is_some());
    assert!(store.delete_user(f.team.id, member.id).await.unwrap());
    assert_eq!(store.api_key_by_hash(&secret.hash()).await.unwrap(), None);
    let ids: Vec<ApiKeyId> = store
        .api_keys(f.team.id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    assert_eq!(ids, [f.key.id]);
}

pub async fn team_keys_are_listed_deleted_within_their_team_and_touched_once_a_minute(
    store: Arc<dyn Store>,
) {
    let f = stored_team(&*store, "keys").await;
    let other = stored_team(&*store, "keys-other").await;
    let (later, _) = ApiKey::new(
        f.team.id,
        f.owner.id,
        Role::Member,
        true,
        Some("ci".into()),
        t0().plus_seconds(5),
    );
    store.insert_api_key(&later).await.unwrap();
    let listed = store.api_keys(f.team.id).await.unwrap();
    assert_eq!(
        listed,
        [f.key.clone(), later.clone()],
        "oldest first, as stored"
    );

    assert!(!store
        .delete_team_api_key(other.team.id, later.id)
        .await
        .unwrap());
    store
        .touch_api_key(later.id, t0().plus_seconds(100), 60)
        .await
        .unwrap();
    store
        .touch_api_key(later.id, t0().plus_seconds(159), 60)
        .await
        .unwrap();
    let stamp = |keys: Vec<ApiKey>| {
        keys.into_iter()
            .find(|k| k.id == later.id)
            .unwrap()
            .last_used_at
    };
    assert_eq!(
        stamp(store.api_keys(f.team.id).await.unwrap()),
        Some(t0().plus_seconds(100))
    );
    store
        .touch_api_key(later.id, t0().plus_seconds(160), 60)
        .await
        .unwrap();
    assert_eq!(
        stamp(store.api_keys(f.team.id).await.unwrap()),
        Some(t0().plus_seconds(160))
    );

    assert!(store
        .delete_team_api_key(f.team.id, later.id)
        .await
        .unwrap());
    assert!(!store
        .delete_team_api_key(f.team.id, later.id)
        .await
        .unwrap());
    assert_eq!(store.api_keys(f.team.id).await.unwrap(), [f.key]);
}

fn query(search: Option<&str>, sort: Option<&str>, limit: i64, offset: i64) -> SubscriberQuery {
    SubscriberQuery::new(
        search,
        sort,
        PageRequest::new(Some(limit), Some(offset), 20).unwrap(),
    )
    .unwrap()
}

async fn names(
    store: &dyn Store,
    team: sounding_domain::TeamId,
    q: SubscriberQuery,
) -> (Vec<String>, i64) {
    let page = store.list_subscribers(team, &q).await.unwrap();
    (page.items.into_iter().map(|s| s.name).collect(), page.total)
}

pub async fn subscriber_lists_search_sort_and_page(store: Arc<dyn Store>) {
    let f = stored_team(&*store, "subs").await;
    let other = stored_team(&*store, "subs-other").await;
    let team = f.team.id;
    for (i, (email, name, mmr)) in [
        ("zed@x.io", "Zed", Some(5.0)),
        ("amy@y.io", "amy 50%_off", None),
        ("bob@x.io", "Bob", Some(50.0)),
    ]
    .into_iter()
    .enumerate()
    {
        let meta = mmr.map(|m| json!({ "mmr": m }));
        let input = identify(email, Some(name), meta);
        store
            .identify(team, &input, t0().plus_seconds(i as i64))
            .await
            .unwrap();
    }
    subscriber(&*store, other.team.id, "zed@x.io").await;

    assert_eq!(
        names(&*store, team, query(None, None, 20, 0)).await,
        (vec!["Bob".into(), "amy 50%_off".into(), "Zed".into()], 3),
        "newest first by default"
    );
    assert_eq!(
        names(&*store, team, query(None, Some("name"), 20, 0))
            .await
            .0,
        ["amy 50%_off", "Bob", "Zed"],
        "names sort case-insensitively"
    );
    assert_eq!(
        names(&*store, team, query(None, Some("email"), 20, 0))
            .await
            .0,
        ["amy 50%_off", "Bob", "Zed"]
    );
    assert_eq!(
        names(&*store, team, query(None, Some("mmr"), 20, 0))
            .await
            .0,
        ["Bob", "Zed", "amy 50%_off"],
        "highest mmr first, none last"
    );
    assert_eq!(
        names(&*store, team, query(Some("X.IO"), Some("name"), 20, 0)).await,
        (vec!["Bob".into(), "Zed".into()], 2)
    );
    assert_eq!(
        names(&*store, team, query(Some("%_"), None, 20, 0)).await.0,
        ["amy 50%_off"],
        "wildcards are taken literally"
    );
    assert_eq!(
        names(&*store, team, query(Some("_"), None, 20, 0)).await.1,
        1
    );
    assert_eq!(
        names(&*store, team, query(None, Some("name"), 1, 1)).await,
        (vec!["Bob".into()], 3)
    );
}

pub async fn subscriber_updates_merge_and_erase_hides_them(store: Arc<dyn Store>) {
    let f = stored_team(&*store, "erase").await;
    let team = f.team.id;
    let input = identify(
        "a@x.io",
        Some("Ann"),
        Some(json!({"plan": "pro", "mmr": 3})),
    );
    let (ann, _) = store.identify(team, &input, t0()).await.unwrap();
    let patch = SubscriberPatch::new(
        Some("Ann B"),
        Some(&json!({"plan": null, "mmr": 7, "x": true})),
    )
    .unwrap();
    let updated = store
        .update_subscriber(team, ann.id, &patch, t0().plus_seconds(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(updated.name, "Ann B");
    assert_eq!(
        serde_json::Value::Object(updated.meta.clone()),
        json!({"mmr": 7, "x": true})
    );
    assert_eq!(
        (updated.attributes.mmr, updated.attributes.plan.clone()),
        (Some(7.0), None)
    );
    assert_eq!(
        store.live_subscriber(team, ann.id).await.unwrap(),
        Some(updated.clone())
    );

    assert!(store
        .erase_subscriber(team, ann.id, t0().plus_seconds(2))
        .await
        .unwrap());
    assert!(!store
        .erase_subscriber(team, ann.id, t0().plus_seconds(3))
        .await
        .unwrap());
    assert_eq!(store.live_subscriber(team, ann.id).await.unwrap(), None);
    assert_eq!(
        store
            .update_subscriber(team, ann.id, &patch, t0())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .list_subscribers(team, &query(None, None, 20, 0))
            .await
            .unwrap()
            .total,
        0
    );
    // The row stays, erased, for the comments and votes it wrote.
    let erased = store.subscriber(team, ann.id).await.unwrap().unwrap();
    assert_eq!(erased.name, DELETED_SUBSCRIBER_NAME);
    assert_eq!((erased.email, erased.avatar_url), (None, None));
    assert_eq!(erased.meta, meta::Meta::new());
    assert_eq!(erased.attributes, Default::default());
    assert_eq!(erased.token_version, ann.token_version + 1);
    // The e-mail is free: identifying it again makes a new subscriber.
    let (again, created) = store.identify(team, &input, t0()).await.unwrap();
    assert!(created);
    assert_ne!(again.id, ann.id);
    assert!(!store
        .erase_subscriber(team, SubscriberId::new(), t0())
        .await
        .unwrap());
}
