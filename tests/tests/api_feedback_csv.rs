//! Feedback as CSV (`feedbacks.export|import`): columns and RFC 4180 quoting, the formula
//! guard, filters, who may call them, refused rows, and a round trip into another team.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{client::op_request, engine_tests, Reply, TestApp};

engine_tests!(
    export_then_import_into_a_second_team_round_trips_titles_texts_statuses_and_creators,
    cells_are_quoted_per_rfc_4180_and_formulas_are_guarded_then_unguarded,
    export_filters_and_refuses_what_it_must,
    import_refuses_bad_rows_with_reasons_and_creates_the_rest,
    import_input_errors_change_nothing,
    an_export_longer_than_a_page_has_every_item_once,
);

const HEADER: &str = "id,title,text,status,priority,type,board,creatorEmail,creatorName,votes,\
comments,createdAt,publishedAt,archivedAt";

/// `feedbacks.export` with `key`: (status, content type, body text).
async fn export(app: &TestApp, key: &str, body: Value) -> (u16, String, String) {
    let response = op_request(&app.client, &app.base, "feedbacks.export", Some(key), &body)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, kind, response.text().await.expect("body"))
}

async fn export_ok(app: &TestApp, body: Value) -> String {
    let (status, kind, text) = export(app, &app.key, body).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(kind, "text/csv; charset=utf-8");
    text
}

/// `feedbacks.import` with the CSV as the raw `text/csv` body.
async fn import_raw(app: &TestApp, key: &str, csv: &str, query: &str) -> Reply {
    let response = app
        .client
        .post(format!("{}/v1/feedbacks.import{query}", app.base))
        .bearer_auth(key)
        .header("content-type", "text/csv")
        .body(csv.to_owned())
        .send()
        .await
        .expect("request sent");
    Reply::from_response(response).await
}

/// The data rows of an export, each cell by header name.
fn rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("a header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("a valid row");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, c)| (h.to_owned(), c.to_owned()))
                .collect()
        })
        .collect()
}

/// What must survive a round trip, per item: title, text, status, creator e-mail, board.
fn essence(items: &[Value]) -> BTreeSet<(String, String, String, String, String)> {
    items
        .iter()
        .map(|f| {
            (
                f["title"].as_str().unwrap().to_owned(),
                f["text"].as_str().unwrap_or_default().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
                f["subscriber"]["email"]
                    .as_str()
                    .expect("a creator e-mail")
                    .to_owned(),
                f["board"]["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

async fn all_items(app: &TestApp, key: &str) -> Vec<Value> {
    app.call(
        "feedbacks.list",
        Some(key),
        json!({"limit": 100, "archived": true}),
    )
    .await
    .ok()
    .as_array()
    .unwrap()
    .clone()
}

async fn export_then_import_into_a_second_team_round_trips_titles_texts_statuses_and_creators(
    app: TestApp,
) {
    let board = app.board(json!({"name": "Ideas"})).await;
    app.feedback(json!({
        "title": "Dark mode", "text": "Please, \"really\"\nsoon", "status": "planned",
        "priority": "high", "boardId": board["id"], "creatorEmail": "ann.lee@example.com",
        "creatorName": "Ann Lee"
    }))
    .await;
    app.feedback(
        json!({"title": "Export", "status": "completed", "creatorEmail": "bob@example.com"}),
    )
    .await;
    let (_, token) = app.identify("carl.fox@example.com").await;
    app.public_feedback(&token, json!({"title": "Widget", "text": "Smaller"}))
        .await;
    let source = all_items(&app, &app.key).await;
    assert_eq!(source.len(), 3);

    let text = export_ok(&app, json!({})).await;
    let (_, other_key) = app.other_team("second").await;
    app.call(
        "feedback-boards.create",
        Some(&other_key),
        json!({"name": "Ideas"}),
    )
    .await
    .ok();
    let events_before = app.events_of("new_feedback").await.len();
    let reply = import_raw(&app, &other_key, &text, "").await;
    assert_eq!(
        (reply.status, &reply.body),
        (200, &json!({"data": {"created": 3, "refused": []}}))
    );
    let imported = all_items(&app, &other_key).await;
    assert_eq!(essence(&imported), essence(&source));
    let ann = imported.iter().find(|f| f["title"] == "Dark mode").unwrap();
    assert_eq!(ann["subscriber"]["name"], "Ann Lee");
    assert_eq!(ann["priority"], "high");
    // New items in the other team: new ids, their own events, none in the first team.
    let source_ids: BTreeSet<&str> = source.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert!(imported
        .iter()
        .all(|f| !source_ids.contains(f["id"].as_str().unwrap())));
    assert_eq!(app.events_of("new_feedback").await.len(), events_before);
    assert_eq!(all_items(&app, &app.key).await.len(), 3);
}

async fn cells_are_quoted_per_rfc_4180_and_formulas_are_guarded_then_unguarded(app: TestApp) {
    let f = app
        .feedback(json!({
            "title": "=HYPERLINK(\"http://evil\",\"x\")",
            "text": "a, \"b\"\nc",
            "type": "+cmd",
            "creatorEmail": "dan@example.com",
            "creatorName": "@dan"
        }))
        .await;
    let text = export_ok(&app, json!({})).await;
    let mut lines = text.split("\r\n");
    assert_eq!(lines.next(), Some(HEADER));
    assert!(
        text.contains(",\"a, \"\"b\"\"\nc\","),
        "quotes doubled, the cell quoted whole: {text}"
    );
    let row = &rows(&text)[0];
    assert_eq!(row["id"], f["id"].as_str().unwrap());
    assert_eq!(row["title"], "'=HYPERLINK(\"http://evil\",\"x\")");
    assert_eq!(row["text"], "a, \"b\"\nc");
    assert_eq!(row["type"], "'+cmd");
    assert_eq!(row["creatorName"], "'@dan");
    assert_eq!(row["status"], "in_review");
    assert_eq!(row["votes"], "0");
    assert_eq!(row["archivedAt"], "");
    assert!(!row["createdAt"].is_empty());

    // Import (as JSON) takes the guard off again.
    let (_, other_key) = app.other_team("guarded").await;
    let reply = app
        .call("feedbacks.import", Some(&other_key), json!({"csv": text}))
        .await;
    assert_eq!(reply.ok()["created"], 1);
    let back = &all_items(&app, &other_key).await[0];
    assert_eq!(back["title"], f["title"]);
    assert_eq!(back["text"], f["text"]);
    assert_eq!(back["type"], "+cmd");
    assert_eq!(back["subscriber"]["name"], "@dan");
}

async fn export_filters_and_refuses_what_it_must(app: TestApp) {
    let board = app.board(json!({"name": "Ideas"})).await;
    app.feedback(json!({"title": "On board", "boardId": board["id"], "status": "planned"}))
        .await;
    app.feedback(json!({"title": "Planned", "status": "planned"}))
        .await;
    app.feedback(json!({"title": "Loose"})).await;
    let titles = |text: String| -> BTreeSet<String> {
        rows(&text)
            .into_iter()
            .map(|r| r["title"].clone())
            .collect()
    };
    assert_eq!(
        titles(export_ok(&app, json!({"boardId": board["id"]})).await),
        BTreeSet::from(["On board".to_owned()])
    );
    assert_eq!(
        titles(export_ok(&app, json!({"status": "planned"})).await),
        BTreeSet::from(["On board".to_owned(), "Planned".to_owned()])
    );
    assert_eq!(titles(export_ok(&app, json!({})).await).len(), 3);

    let (status, _, body) = export(
        &app,
        &app.key,
        json!({"boardId": "0191c8a0-0000-7000-8000-000000000000"}),
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (404, r#"{"error":"Board not found","statusCode":404}"#)
    );
    let (status, _, body) = export(&app, &app.key, json!({"boardId": "x"})).await;
    assert_eq!(status, 400);
    assert!(body.contains("boardId must be a UUID"), "{body}");
    let (status, _, body) = export(&app, &app.key, json!({"status": "nope"})).await;
    assert_eq!(status, 400);
    assert!(body.contains("status must be one of"), "{body}");
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    let (status, _, body) = export(&app, &read_only, json!({})).await;
    assert_eq!(
        (status, body.contains("This API key is read-only")),
        (403, true)
    );
    let (_, token) = app.identify("ann@example.com").await;
    let (status, _, _) = export(&app, &token, json!({})).await;
    assert_eq!(status, 401);
}

async fn import_refuses_bad_rows_with_reasons_and_creates_the_rest(app: TestApp) {
    app.board(json!({"name": "Ideas"})).await;
    // Erin exists: the import finds her and leaves her name alone.
    app.call(
        "public/subscriber.identify",
        Some(&app.key),
        json!({"email": "erin@example.com", "name": "Erin Original"}),
    )
    .await
    .ok();
    let csv = "title,text,status,board,creatorEmail,creatorName\r\n\
        Good one,Fine,planned,Ideas,erin@example.com,Erin\r\n\
        ,no title,,,,\r\n\
        Bad status,,someday,,,\r\n\
        Lost,,,Nowhere,,\r\n\
        Bad mail,,,,not-an-email,\r\n\
        \"Also good, quoted\",\"multi\r\nline\",,,,\r\n";
    let before = app.events_of("new_feedback").await.len();
    let reply = import_raw(&app, &app.key, csv, "").await;
    let data = reply.ok();
    assert_eq!(data["created"], 2, "{data}");
    let refused = data["refused"].as_array().unwrap();
    let rows: Vec<i64> = refused.iter().map(|r| r["row"].as_i64().unwrap()).collect();
    assert_eq!(rows, vec![3, 4, 5, 6]);
    assert_eq!(refused[0]["error"], "title is required");
    assert!(refused[1]["error"]
        .as_str()
        .unwrap()
        .starts_with("status must be one of"));
    assert_eq!(refused[2]["error"], "board \"Nowhere\" not found");
    assert!(refused[3]["error"].as_str().unwrap().contains("e-mail"));
    assert_eq!(app.events_of("new_feedback").await.len(), before + 2);

    let items = all_items(&app, &app.key).await;
    let good = items.iter().find(|f| f["title"] == "Good one").unwrap();
    assert_eq!(good["status"], "planned");
    assert_eq!(good["board"]["name"], "Ideas");
    assert_eq!(good["subscriber"]["email"], "erin@example.com");
    assert_eq!(good["subscriber"]["name"], "Erin Original");
    let quoted = items
        .iter()
        .find(|f| f["title"] == "Also good, quoted")
        .unwrap();
    assert_eq!(quoted["text"], "multi\r\nline");
    assert_eq!(quoted["status"], "in_review");

    // `boardId` puts every row on that board, whatever the column says.
    let other = app.board(json!({"name": "Other"})).await;
    let reply = import_raw(
        &app,
        &app.key,
        "title,board\r\nPinned,Nowhere\r\n",
        &format!("?boardId={}", other["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(reply.ok()["created"], 1);
    let pinned = all_items(&app, &app.key)
        .await
        .into_iter()
        .find(|f| f["title"] == "Pinned")
        .unwrap();
    assert_eq!(pinned["board"]["id"], other["id"]);
}

async fn import_input_errors_change_nothing(app: TestApp) {
    let csv = "title\r\nX\r\n";
    app.team("feedbacks.import", json!({}))
        .await
        .assert_error(400, "csv is required");
    app.team("feedbacks.import", json!({"csv": "name\r\nx\r\n"}))
        .await
        .assert_error(400, "csv must have a header row with a title column");
    app.team("feedbacks.import", json!({"csv": csv, "boardId": "x"}))
        .await
        .assert_error(400, "boardId must be a UUID");
    app.team(
        "feedbacks.import",
        json!({"csv": csv, "boardId": "0191c8a0-0000-7000-8000-000000000000"}),
    )
    .await
    .assert_error(404, "Board not found");
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    import_raw(&app, &read_only, csv, "")
        .await
        .assert_error(403, "This API key is read-only");
    let (_, token) = app.identify("ann@example.com").await;
    import_raw(&app, &token, csv, "")
        .await
        .assert_error(401, "Authentication required");
    let response = app
        .client
        .post(format!("{}/v1/feedbacks.import", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "text/plain")
        .body(csv)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    let too_big = format!("title\r\n{}\r\n", "x".repeat(1024 * 1024));
    assert_eq!(import_raw(&app, &app.key, &too_big, "").await.status, 413);
    assert!(all_items(&app, &app.key).await.is_empty());
}

async fn an_export_longer_than_a_page_has_every_item_once(app: TestApp) {
    // More than one page of the list the export reads (100 a page).
    for n in 0..130 {
        app.feedback(json!({"title": format!("item {n}")})).await;
    }
    let exported = rows(&export_ok(&app, json!({})).await);
    let titles: BTreeSet<String> = exported.iter().map(|r| r["title"].clone()).collect();
    assert_eq!((exported.len(), titles.len()), (130, 130));
    assert!(titles.contains("item 0") && titles.contains("item 129"));
}
