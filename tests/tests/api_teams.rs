//! `teams.info` and `teams.update`, and the roles of decisions §5.

use serde_json::json;
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    teams_info_returns_the_keys_team,
    an_admin_updates_settings_and_only_what_was_given,
    a_member_key_cannot_change_settings,
    a_read_only_key_reads_but_cannot_write,
    invalid_settings_are_400_and_change_nothing,
);

async fn teams_info_returns_the_keys_team(app: TestApp) {
    let team = app.team("teams.info", json!({})).await.ok().clone();
    assert_eq!(team["id"], app.team_id);
    assert_eq!(team["name"], "Default");
    assert_eq!(team["subdomain"], "default");
    let created = team["createdAt"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "{created}");
    assert_eq!(team["allowAnonymousFeedback"], false);
    assert_eq!(team["publicBoardModeration"], false);
    let (other_id, other_key) = app.other_team("acme").await;
    let other = app.call("teams.info", Some(&other_key), json!({})).await;
    assert_eq!(other.ok()["id"], other_id);
    assert_eq!(other.ok()["subdomain"], "acme");
}

async fn an_admin_updates_settings_and_only_what_was_given(app: TestApp) {
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let reply = app
        .call(
            "teams.update",
            Some(&admin),
            json!({"publicBoardModeration": true}),
        )
        .await;
    let team = reply.ok();
    assert_eq!(team["publicBoardModeration"], true);
    assert_eq!(team["allowAnonymousFeedback"], false);
    assert_eq!(team["name"], "Default");
    let reply = app
        .team(
            "teams.update",
            json!({"name": "  Acme Feedback ", "allowAnonymousFeedback": true}),
        )
        .await;
    assert_eq!(reply.ok()["name"], "Acme Feedback");
    let info = app.team("teams.info", json!({})).await;
    assert_eq!(info.ok()["allowAnonymousFeedback"], true);
    assert_eq!(info.ok()["publicBoardModeration"], true);
}

async fn a_member_key_cannot_change_settings(app: TestApp) {
    let (member, _) = app.key_with(Role::Member, false).await;
    let reply = app
        .call("teams.update", Some(&member), json!({"name": "Hijacked"}))
        .await;
    reply.assert_error(403, "The member role cannot manage team settings");
    assert_eq!(
        app.call("teams.info", Some(&member), json!({})).await.ok()["name"],
        "Default"
    );
}

async fn a_read_only_key_reads_but_cannot_write(app: TestApp) {
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    assert_eq!(
        app.call("teams.info", Some(&read_only), json!({}))
            .await
            .status,
        200
    );
    assert_eq!(
        app.call("feedback-boards.list", Some(&read_only), json!({}))
            .await
            .status,
        200
    );
    app.call("teams.update", Some(&read_only), json!({"name": "X"}))
        .await
        .assert_error(403, "This API key is read-only");
    app.call(
        "feedback-boards.create",
        Some(&read_only),
        json!({"name": "X"}),
    )
    .await
    .assert_error(403, "This API key is read-only");
    app.call(
        "public/subscriber.identify",
        Some(&read_only),
        json!({"email": "a@example.com"}),
    )
    .await
    .assert_error(403, "This API key is read-only");
}

async fn invalid_settings_are_400_and_change_nothing(app: TestApp) {
    app.team("teams.update", json!({"name": "   "}))
        .await
        .assert_error(400, "name is required");
    app.team("teams.update", json!({"name": "x".repeat(256)}))
        .await
        .assert_error(400, "name must be at most 255 characters");
    let reply = app
        .team("teams.update", json!({"allowAnonymousFeedback": "maybe"}))
        .await;
    assert_eq!(reply.status, 400);
    let info = app.team("teams.info", json!({})).await;
    assert_eq!(info.ok()["name"], "Default");
    assert_eq!(info.ok()["allowAnonymousFeedback"], false);
}
