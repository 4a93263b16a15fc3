//! `users.*` and `api-keys.*` (team administration, issue 6): roles and their limits, the
//! last owner, keys shown once and never listed, deleted keys and users' keys refused at once.

use serde_json::{json, Value};
use sounding_domain::{
    access::Role,
    api_key::{hash_key, ApiKey},
    TeamId, UserId,
};
use sounding_tests::{client::assert_timestamp, client::field_names, engine_tests, TestApp};

engine_tests!(
    users_list_shows_the_owner_first_with_every_field,
    users_create_validates_and_a_known_email_is_409_creating_nothing,
    only_an_owner_makes_changes_or_removes_owners,
    the_last_owner_cannot_be_demoted_or_removed,
    deleting_a_user_deletes_their_keys_which_fail_at_once,
    a_demoted_users_key_acts_with_the_new_role_at_once,
    api_keys_list_never_shows_a_key_or_its_hash,
    api_keys_create_shows_the_key_once_with_the_callers_role_at_most,
    a_deleted_key_fails_with_401_on_the_next_request,
    key_use_is_recorded_at_most_once_a_minute,
    bad_key_and_user_input_is_400,
);

/// A key of `user` stored directly (the API issues keys for the caller's own user only).
async fn key_for(app: &TestApp, user: &Value, role: Role) -> String {
    let team = TeamId::parse("teamId", &app.team_id).unwrap();
    let user = UserId::parse("id", user["id"].as_str().unwrap()).unwrap();
    let (key, secret) = ApiKey::new(
        team,
        user,
        role,
        false,
        None,
        sounding_server::system_clock().now(),
    );
    app.running.store.insert_api_key(&key).await.unwrap();
    secret.expose().to_owned()
}

async fn create_user(app: &TestApp, email: &str, role: &str) -> Value {
    app.team(
        "users.create",
        json!({"email": email, "name": "Someone", "role": role}),
    )
    .await
    .ok()
    .clone()
}

async fn users_list_shows_the_owner_first_with_every_field(app: TestApp) {
    let member = create_user(&app, "Mia@Example.com", "member").await;
    let admin = create_user(&app, "adam@example.com", "admin").await;
    let list = app.team("users.list", json!({})).await;
    let users = list.ok().as_array().unwrap().clone();
    assert_eq!(
        users
            .iter()
            .map(|u| u["role"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["owner", "admin", "member"]
    );
    assert_eq!(users[1], admin);
    assert_eq!(users[2], member);
    assert_eq!(member["email"], "mia@example.com", "stored in lowercase");
    assert_eq!(
        field_names(&users[0]),
        ["createdAt", "email", "id", "name", "role"].into()
    );
    assert_timestamp(&users[0]["createdAt"]);
    // Any key may read the roster, a read-only member key too.
    let (reader, _) = app.key_with(Role::Member, true).await;
    let seen = app.call("users.list", Some(&reader), json!({})).await;
    assert_eq!(seen.ok().as_array().unwrap().len(), 3);
}

async fn users_create_validates_and_a_known_email_is_409_creating_nothing(app: TestApp) {
    create_user(&app, "mia@example.com", "member").await;
    app.team(
        "users.create",
        json!({"email": "MIA@example.com", "name": "Again", "role": "admin"}),
    )
    .await
    .assert_error(409, "A user with e-mail mia@example.com already exists");
    for (body, message) in [
        (json!({"name": "N", "role": "member"}), "email is required"),
        (
            json!({"email": "nope", "name": "N", "role": "member"}),
            "email must be a valid e-mail address",
        ),
        (
            json!({"email": "a@x.io", "role": "member"}),
            "name is required",
        ),
        (json!({"email": "a@x.io", "name": "N"}), "role is required"),
        (
            json!({"email": "a@x.io", "name": "N", "role": "root"}),
            "role must be one of owner, admin, member",
        ),
    ] {
        app.team("users.create", body)
            .await
            .assert_error(400, message);
    }
    let list = app.team("users.list", json!({})).await;
    assert_eq!(list.ok().as_array().unwrap().len(), 2);
}

async fn only_an_owner_makes_changes_or_removes_owners(app: TestApp) {
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let owner = app.team("users.list", json!({})).await.ok()[0].clone();
    let mia = create_user(&app, "mia@example.com", "member").await;

    app.call(
        "users.create",
        Some(&admin),
        json!({"email": "o2@example.com", "name": "O", "role": "owner"}),
    )
    .await
    .assert_error(403, "Only an owner can create an owner");
    for body in [
        json!({"id": mia["id"], "role": "owner"}),
        json!({"id": owner["id"], "role": "admin"}),
    ] {
        app.call("users.update", Some(&admin), body)
            .await
            .assert_error(403, "Only an owner can change an owner or make one");
    }
    app.call("users.delete", Some(&admin), json!({"id": mia["id"]}))
        .await
        .assert_error(403, "Only an owner can delete team users");

    // An admin may still re-role non-owners.
    let promoted = app
        .call(
            "users.update",
            Some(&admin),
            json!({"id": mia["id"], "role": "admin"}),
        )
        .await;
    assert_eq!(promoted.ok()["role"], "admin");
    let by_admin = app
        .call(
            "users.create",
            Some(&admin),
            json!({"email": "m2@example.com", "name": "M", "role": "member"}),
        )
        .await;
    assert_eq!(by_admin.ok()["role"], "member");

    // The owner can do all of it.
    let o2 = create_user(&app, "o2@example.com", "owner").await;
    assert_eq!(o2["role"], "owner");
    let demoted = app
        .team("users.update", json!({"id": o2["id"], "role": "member"}))
        .await;
    assert_eq!(demoted.ok()["role"], "member");
    let gone = app.team("users.delete", json!({"id": o2["id"]})).await;
    gone.assert_body(200, json!({"success": true, "id": o2["id"]}));
    app.team("users.delete", json!({"id": o2["id"]}))
        .await
        .assert_error(404, "User not found");
    app.team("users.update", json!({"id": o2["id"], "role": "admin"}))
        .await
        .assert_error(404, "User not found");
}

async fn the_last_owner_cannot_be_demoted_or_removed(app: TestApp) {
    let owner = app.team("users.list", json!({})).await.ok()[0].clone();
    let message = "The team must keep at least one owner";
    app.team("users.update", json!({"id": owner["id"], "role": "admin"}))
        .await
        .assert_error(409, message);
    app.team("users.delete", json!({"id": owner["id"]}))
        .await
        .assert_error(409, message);
    let still = app.team("users.list", json!({})).await;
    assert_eq!(still.ok()[0], owner);
    // Keeping the owner an owner is no demotion.
    let same = app
        .team("users.update", json!({"id": owner["id"], "role": "owner"}))
        .await;
    assert_eq!(same.ok()["role"], "owner");

    // With a second owner the first may step down, and then the second is the last.
    let second = create_user(&app, "o2@example.com", "owner").await;
    let second_key = key_for(&app, &second, Role::Owner).await;
    let down = app
        .team("users.update", json!({"id": owner["id"], "role": "admin"}))
        .await;
    assert_eq!(down.ok()["role"], "admin");
    app.call(
        "users.delete",
        Some(&second_key),
        json!({"id": second["id"]}),
    )
    .await
    .assert_error(409, message);
}

async fn deleting_a_user_deletes_their_keys_which_fail_at_once(app: TestApp) {
    let adam = create_user(&app, "adam@example.com", "admin").await;
    let key = key_for(&app, &adam, Role::Admin).await;
    app.call("teams.info", Some(&key), json!({})).await.ok();
    let keys_before = app
        .team("api-keys.list", json!({}))
        .await
        .ok()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(keys_before, 2);

    app.team("users.delete", json!({"id": adam["id"]}))
        .await
        .ok();
    app.call("teams.info", Some(&key), json!({}))
        .await
        .assert_error(401, "Authentication required");
    let keys_after = app.team("api-keys.list", json!({})).await;
    assert_eq!(keys_after.ok().as_array().unwrap().len(), 1);
    let found = app
        .running
        .store
        .api_key_by_hash(&hash_key(&key))
        .await
        .unwrap();
    assert_eq!(found, None);
}

async fn a_demoted_users_key_acts_with_the_new_role_at_once(app: TestApp) {
    let adam = create_user(&app, "adam@example.com", "admin").await;
    let key = key_for(&app, &adam, Role::Owner).await;
    // An owner-role key of an admin acts as an admin: it cannot make owners.
    app.call(
        "users.create",
        Some(&key),
        json!({"email": "o@example.com", "name": "O", "role": "owner"}),
    )
    .await
    .assert_error(403, "Only an owner can create an owner");
    let board = app
        .call(
            "feedback-boards.create",
            Some(&key),
            json!({"name": "Ideas"}),
        )
        .await;
    assert_eq!(board.ok()["name"], "Ideas");

    app.team("users.update", json!({"id": adam["id"], "role": "member"}))
        .await
        .ok();
    app.call(
        "feedback-boards.create",
        Some(&key),
        json!({"name": "More"}),
    )
    .await
    .assert_error(403, "The member role cannot manage boards");
    // Nor can it issue itself a stronger key.
    app.call("api-keys.create", Some(&key), json!({}))
        .await
        .assert_error(403, "The member role cannot manage API keys");
}

async fn api_keys_list_never_shows_a_key_or_its_hash(app: TestApp) {
    let created = app
        .team("api-keys.create", json!({"name": "CI", "readOnly": true}))
        .await;
    let secret = created.ok()["key"].as_str().unwrap().to_owned();
    let list = app.team("api-keys.list", json!({})).await;
    let keys = list.ok().as_array().unwrap().clone();
    assert_eq!(keys.len(), 2);
    for k in &keys {
        assert_eq!(
            field_names(k),
            [
                "createdAt",
                "id",
                "lastUsedAt",
                "name",
                "prefix",
                "readOnly",
                "role"
            ]
            .into()
        );
        assert_eq!(k["prefix"].as_str().unwrap().len(), 6);
    }
    let text = list.body.to_string();
    for hidden in [
        secret.clone(),
        hash_key(&secret),
        app.key.clone(),
        hash_key(&app.key),
    ] {
        assert!(!text.contains(&hidden), "the list shows a key or hash");
    }
    let ci = &keys[1];
    assert_eq!(
        (&ci["name"], &ci["readOnly"], &ci["role"], &ci["id"]),
        (
            &json!("CI"),
            &json!(true),
            &json!("owner"),
            &created.ok()["id"]
        )
    );
    assert_eq!(ci["prefix"], secret[..6]);
}

async fn api_keys_create_shows_the_key_once_with_the_callers_role_at_most(app: TestApp) {
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let made = app.call("api-keys.create", Some(&admin), json!({})).await;
    let data = made.ok().clone();
    let key = data["key"].as_str().unwrap();
    assert_eq!(key.len(), 38);
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert_eq!(data["role"], "admin", "the caller's role by default");
    assert_eq!(data["readOnly"], false);
    assert_eq!(data["lastUsedAt"], Value::Null);
    assert_eq!(data["prefix"], key[..6]);
    assert_timestamp(&data["createdAt"]);
    // The new key works, as its role.
    let board = app
        .call(
            "feedback-boards.create",
            Some(key),
            json!({"name": "By new key"}),
        )
        .await;
    assert_eq!(board.ok()["name"], "By new key");

    app.call("api-keys.create", Some(&admin), json!({"role": "owner"}))
        .await
        .assert_error(
            403,
            "The admin role cannot create a key with the owner role",
        );
    let lower = app
        .call(
            "api-keys.create",
            Some(&admin),
            json!({"role": "member", "readOnly": "true", "name": "reader"}),
        )
        .await;
    let lower_key = lower.ok()["key"].as_str().unwrap().to_owned();
    assert_eq!(
        (&lower.ok()["role"], &lower.ok()["readOnly"]),
        (&json!("member"), &json!(true))
    );
    app.call("feedbacks.create", Some(&lower_key), json!({"title": "x"}))
        .await
        .assert_error(403, "This API key is read-only");
    // Created for the caller's user.
    let grant = app
        .running
        .store
        .api_key_by_hash(&hash_key(&lower_key))
        .await
        .unwrap()
        .unwrap();
    let owner = app.team("users.list", json!({})).await.ok()[0]["id"].clone();
    assert_eq!(json!(grant.key.user_id.to_string()), owner);
    assert_eq!(
        app.team("api-keys.list", json!({}))
            .await
            .ok()
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

async fn a_deleted_key_fails_with_401_on_the_next_request(app: TestApp) {
    let made = app.team("api-keys.create", json!({})).await;
    let (id, key) = (
        made.ok()["id"].clone(),
        made.ok()["key"].as_str().unwrap().to_owned(),
    );
    app.call("teams.info", Some(&key), json!({})).await.ok();
    let deleted = app.team("api-keys.delete", json!({"id": id})).await;
    deleted.assert_body(200, json!({"success": true, "id": id}));
    app.call("teams.info", Some(&key), json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.team("api-keys.delete", json!({"id": id}))
        .await
        .assert_error(404, "API key not found");
    // Another team's key is not found, and keeps working.
    let (_, other_key) = app.other_team("elsewhere").await;
    let other_id = app
        .call("api-keys.list", Some(&other_key), json!({}))
        .await
        .ok()[0]["id"]
        .clone();
    app.team("api-keys.delete", json!({"id": other_id}))
        .await
        .assert_error(404, "API key not found");
    app.call("teams.info", Some(&other_key), json!({}))
        .await
        .ok();
}

async fn key_use_is_recorded_at_most_once_a_minute(app: TestApp) {
    let made = app.team("api-keys.create", json!({"name": "used"})).await;
    let (id, key) = (
        made.ok()["id"].clone(),
        made.ok()["key"].as_str().unwrap().to_owned(),
    );
    let used_at = |list: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == id)
            .unwrap()["lastUsedAt"]
            .clone()
    };
    let before = app.team("api-keys.list", json!({})).await;
    assert_eq!(used_at(before.ok()), Value::Null);
    app.call("teams.info", Some(&key), json!({})).await.ok();
    let first = used_at(app.team("api-keys.list", json!({})).await.ok());
    assert_timestamp(&first);
    app.call("teams.info", Some(&key), json!({})).await.ok();
    let second = used_at(app.team("api-keys.list", json!({})).await.ok());
    assert_eq!(
        first, second,
        "a second use within the minute writes nothing"
    );
}

async fn bad_key_and_user_input_is_400(app: TestApp) {
    for (op, body, message) in [
        (
            "api-keys.create",
            json!({"role": "root"}),
            "role must be one of owner, admin, member",
        ),
        (
            "api-keys.create",
            json!({"readOnly": "maybe"}),
            "readOnly must be a boolean",
        ),
        (
            "api-keys.create",
            json!({"name": "x".repeat(256)}),
            "name must be at most 255 characters",
        ),
        ("api-keys.delete", json!({}), "id is required"),
        (
            "api-keys.delete",
            json!({"id": "nope"}),
            "id must be a UUID",
        ),
        ("users.update", json!({"role": "admin"}), "id is required"),
        (
            "users.update",
            json!({"id": "00000000-0000-4000-8000-000000000000"}),
            "role is required",
        ),
        ("users.delete", json!({"id": 7}), "id must be a string"),
    ] {
        let reply = app.team(op, body).await;
        assert_eq!(
            (reply.status, reply.body["error"].as_str()),
            (400, Some(message)),
            "{op}: {}",
            reply.body
        );
    }
    assert_eq!(
        app.team("api-keys.list", json!({}))
            .await
            .ok()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
