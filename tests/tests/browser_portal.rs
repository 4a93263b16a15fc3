//! The public portal (issue 22): `GET /p/<subdomain>`, `/p/<subdomain>/feedback/<id>` and
//! `/p/<subdomain>/roadmap`, server-rendered for visitors without a credential. Nothing
//! private, unpublished or archived appears; user input renders as text; every page carries a
//! strict Content-Security-Policy.

use serde_json::{json, Value};
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    the_front_page_lists_public_published_feedback_only,
    an_item_page_shows_its_public_comments_and_hides_what_a_visitor_may_not_read,
    titles_and_comments_render_as_text,
    the_roadmap_page_shows_public_stages_and_their_topics,
    the_sign_in_link_is_the_teams_and_only_http,
    unknown_teams_pages_and_parameters_are_refused,
);

struct Page {
    status: u16,
    csp: Option<String>,
    html: String,
}

async fn page(app: &TestApp, path: &str) -> Page {
    let response = app
        .client
        .get(format!("{}{path}", app.base))
        .send()
        .await
        .expect("page fetched");
    let status = response.status().as_u16();
    let csp = response
        .headers()
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_owned());
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(kind, "text/html; charset=utf-8", "{path}");
    Page {
        status,
        csp,
        html: response.text().await.unwrap(),
    }
}

async fn ok_page(app: &TestApp, path: &str) -> String {
    let page = page(app, path).await;
    assert_eq!(page.status, 200, "{path}: {}", page.html);
    let csp = page.csp.expect("a Content-Security-Policy");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    page.html
}

/// A public board "Ideas" and a private one, "Internal".
async fn boards(app: &TestApp) -> (Value, Value) {
    let public = app
        .board(json!({"name": "Ideas", "meta": {"isPublic": true}}))
        .await;
    let private = app
        .board(json!({"name": "Internal", "meta": {"isPublic": false}}))
        .await;
    (public, private)
}

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

async fn the_front_page_lists_public_published_feedback_only(app: TestApp) {
    let (public, private) = boards(&app).await;
    let shown = app
        .feedback(json!({"title": "Dark mode", "boardId": id(&public)}))
        .await;
    app.feedback(json!({"title": "Secret roadmap item", "boardId": id(&private)}))
        .await;
    let archived = app
        .feedback(json!({"title": "Old archived idea", "boardId": id(&public)}))
        .await;
    app.team("feedbacks.archive", json!({"id": id(&archived)}))
        .await
        .ok();
    app.team("teams.update", json!({"publicBoardModeration": true}))
        .await
        .ok();
    let (_, token) = app.identify("ann@example.com").await;
    app.public_feedback(
        &token,
        json!({"title": "Awaiting moderation", "boardId": id(&public)}),
    )
    .await;
    // Votes order the top list.
    let popular = app
        .feedback(json!({"title": "Exports", "boardId": id(&public)}))
        .await;
    app.call(
        "public/feedback-votes.create",
        Some(&token),
        json!({"feedbackId": id(&popular)}),
    )
    .await
    .ok();

    let html = ok_page(&app, "/p/default").await;
    assert!(
        html.contains("Dark mode") && html.contains("Exports"),
        "{html}"
    );
    assert!(html.contains(&format!("/p/default/feedback/{}", id(&shown))));
    assert!(html.contains(">Ideas<"), "the public board is listed");
    for hidden in [
        "Secret roadmap item",
        "Internal",
        "Old archived idea",
        "Awaiting moderation",
    ] {
        assert!(!html.contains(hidden), "{hidden} appeared: {html}");
    }

    let top = ok_page(&app, "/p/default?sort=top").await;
    let (exports, dark) = (top.find("Exports").unwrap(), top.find("Dark mode").unwrap());
    assert!(exports < dark, "the voted item comes first under top");
    let new = ok_page(&app, "/p/default?sort=new").await;
    assert!(new.find("Exports").unwrap() < new.find("Dark mode").unwrap());

    let searched = ok_page(&app, "/p/default?q=dark").await;
    assert!(searched.contains("Dark mode") && !searched.contains(">Exports<"));
    let on_board = ok_page(&app, &format!("/p/default?board={}", id(&public))).await;
    assert!(on_board.contains("Dark mode"));
    // A private board is not a board a visitor can ask for.
    let refused = page(&app, &format!("/p/default?board={}", id(&private))).await;
    assert_eq!(refused.status, 404);
}

async fn an_item_page_shows_its_public_comments_and_hides_what_a_visitor_may_not_read(
    app: TestApp,
) {
    let (public, private) = boards(&app).await;
    let item = app
        .feedback(
            json!({"title": "Dark mode", "text": "Easier on the eyes", "boardId": id(&public)}),
        )
        .await;
    let (_, token) = app.identify("ann@example.com").await;
    app.call(
        "public/feedback-comments.create",
        Some(&token),
        json!({"feedbackId": id(&item), "text": "Yes please, at night especially"}),
    )
    .await
    .ok();
    app.team(
        "feedback-comments.create",
        json!({"feedbackId": id(&item), "text": "Internal note: costly", "isPrivate": true}),
    )
    .await
    .ok();

    let html = ok_page(&app, &format!("/p/default/feedback/{}", id(&item))).await;
    assert!(html.contains("Dark mode") && html.contains("Easier on the eyes"));
    assert!(html.contains("Yes please, at night especially"));
    assert!(
        !html.contains("Internal note"),
        "a private comment appeared"
    );
    assert!(!html.contains("ann@example.com"), "an e-mail appeared");

    // What a visitor may not read answers exactly like what does not exist.
    let missing = page(
        &app,
        "/p/default/feedback/01900000-0000-7000-8000-000000000000",
    )
    .await;
    assert_eq!(missing.status, 404);
    let secret = app
        .feedback(json!({"title": "Secret", "boardId": id(&private)}))
        .await;
    let archived = app.feedback(json!({"title": "Archived"})).await;
    app.team("feedbacks.archive", json!({"id": id(&archived)}))
        .await
        .ok();
    for hidden in [&secret, &archived] {
        let refused = page(&app, &format!("/p/default/feedback/{}", id(hidden))).await;
        assert_eq!(refused.status, 404);
        assert_eq!(refused.html, missing.html);
    }
    let malformed = page(&app, "/p/default/feedback/not-an-id").await;
    assert_eq!(malformed.status, 400);
}

async fn titles_and_comments_render_as_text(app: TestApp) {
    let script = "<script>alert(1)</script>";
    let img = r#""><img src=x onerror=alert(2)>"#;
    let item = app.feedback(json!({"title": script, "text": img})).await;
    let other = app.feedback(json!({"title": img})).await;
    let (_, token) = app.identify("eve@example.com").await;
    app.call(
        "public/subscriber.identify",
        Some(&app.key),
        json!({"email": "eve@example.com", "name": "<b>Eve</b>"}),
    )
    .await
    .ok();
    app.call(
        "public/feedback-comments.create",
        Some(&token),
        json!({"feedbackId": id(&item), "text": "</li><script>alert(3)</script>"}),
    )
    .await
    .ok();
    let stage_roadmap = app.roadmap("<i>Plans</i>").await;
    let stage = app
        .stage(&stage_roadmap, json!({"name": "<u>Next</u>"}))
        .await;
    app.topic(&token, &stage, json!({"title": "<svg onload=alert(4)>"}))
        .await;

    let pages = [
        ok_page(&app, "/p/default").await,
        ok_page(&app, &format!("/p/default/feedback/{}", id(&item))).await,
        ok_page(&app, &format!("/p/default/feedback/{}", id(&other))).await,
        ok_page(&app, "/p/default/roadmap").await,
        ok_page(&app, "/p/default?q=%3Cscript%3E%22%3E").await,
    ];
    let all = pages.join("\n");
    for raw in ["<script", "<img", "<svg", "<b>Eve", "<i>Plans", "<u>Next"] {
        assert!(!all.contains(raw), "{raw:?} reached a page unescaped");
    }
    assert!(all.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(all.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
    assert!(all.contains("&lt;/li&gt;&lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(all.contains("&lt;svg onload=alert(4)&gt;"));
    assert!(all.contains("&lt;b&gt;Eve&lt;/b&gt;"));
}

async fn the_roadmap_page_shows_public_stages_and_their_topics(app: TestApp) {
    let (_, token) = app.identify("ann@example.com").await;
    let roadmap = app.roadmap("Product").await;
    let next = app.stage(&roadmap, json!({"name": "Up next"})).await;
    app.stage(
        &roadmap,
        json!({"name": "Under wraps", "meta": {"isPrivate": true}}),
    )
    .await;
    let topic = app.topic(&token, &next, json!({"title": "Exports"})).await;
    app.call(
        "public/topic-votes.create",
        Some(&token),
        json!({"id": id(&topic)}),
    )
    .await
    .ok();
    let hidden = app
        .team_data(
            "roadmaps.create",
            json!({"name": "Board only", "private": true}),
        )
        .await;
    assert_eq!(hidden["isPrivate"], true);

    let html = ok_page(&app, "/p/default/roadmap").await;
    assert!(
        html.contains("Product") && html.contains("Up next"),
        "{html}"
    );
    assert!(
        html.contains("Exports") && html.contains("1 vote"),
        "{html}"
    );
    assert!(!html.contains("Under wraps"), "a private stage appeared");
    assert!(!html.contains("Board only"), "a private roadmap appeared");
}

async fn the_sign_in_link_is_the_teams_and_only_http(app: TestApp) {
    let html = ok_page(&app, "/p/default").await;
    assert!(!html.contains("Sign in"));
    let set = app
        .team_data(
            "teams.update",
            json!({"portalSignInUrl": "https://acme.example/login?next=\"portal\""}),
        )
        .await;
    let url = set["portalSignInUrl"].as_str().unwrap().to_owned();
    assert!(url.starts_with("https://acme.example/login?next="), "{url}");
    let html = ok_page(&app, "/p/default").await;
    assert!(
        html.contains("href=\"https://acme.example/login?next="),
        "{html}"
    );
    assert!(html.contains("Sign in"));

    for bad in [
        "javascript:alert(1)",
        "/login",
        "ftp://acme.example",
        "https://u:p@acme.example",
    ] {
        app.team("teams.update", json!({"portalSignInUrl": bad}))
            .await
            .assert_error(400, "portalSignInUrl must be an absolute http or https URL");
    }
    let kept = app.team_data("teams.info", json!({})).await;
    assert_eq!(kept["portalSignInUrl"], set["portalSignInUrl"]);

    let cleared = app
        .team_data("teams.update", json!({"portalSignInUrl": null}))
        .await;
    assert_eq!(cleared["portalSignInUrl"], Value::Null);
    assert!(!ok_page(&app, "/p/default").await.contains("Sign in"));
}

async fn unknown_teams_pages_and_parameters_are_refused(app: TestApp) {
    for path in [
        "/p/nobody",
        "/p/nobody/roadmap",
        "/p/Not_A_Label",
        "/p/default/nothing-here",
    ] {
        let page = page(&app, path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(page.csp.is_some(), "{path}");
    }
    for path in [
        "/p/default?sort=hot",
        "/p/default?unknown=1",
        "/p/default?page=0",
        "/p/default/roadmap?x=1",
    ] {
        let page = page(&app, path).await;
        assert_eq!(page.status, 400, "{path}: {}", page.html);
    }
    // What shared links pick up on the way is no reason to refuse them.
    ok_page(&app, "/p/default?utm_source=newsletter&fbclid=abc&sort=top").await;
    let post = app
        .client
        .post(format!("{}/p/default", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status().as_u16(), 405);
}
