//! Two instances on one database (issue 20): what is written through one is read through the
//! other on the very next request, whatever either has cached, and a deleted key fails at once
//! on both. Instance one is the test's in-process server, instance two the `sounding` binary
//! on the same database, each with its own read cache (PostgreSQL: kept coherent by
//! `LISTEN`/`NOTIFY`; SQLite: by `PRAGMA data_version`, docs/storage.md "Read cache").

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{
    bin::ServerProcess,
    client::{op_request, Reply},
    engine_tests, TestApp,
};

engine_tests!(
    an_edit_through_one_instance_is_read_through_the_other_at_once,
    a_key_deleted_through_one_instance_fails_at_once_on_the_other,
);

/// The second instance: `sounding serve` on the first one's database.
struct Second {
    server: ServerProcess,
    client: reqwest::Client,
}

impl Second {
    fn start(app: &TestApp) -> Second {
        let server = tokio::task::block_in_place(|| ServerProcess::start(&app.database_url, &[]));
        Second {
            server,
            client: reqwest::Client::new(),
        }
    }

    async fn call(&self, key: &str, op: &str, body: Value) -> Reply {
        let request = op_request(&self.client, &self.server.base_url, op, Some(key), &body);
        Reply::from_response(request.send().await.expect("request sent")).await
    }

    /// `op` three times, so the instance has the answer cached; the last reply.
    async fn cached(&self, key: &str, op: &str, body: Value) -> Reply {
        let mut last = None;
        for _ in 0..3 {
            last = Some(self.call(key, op, body.clone()).await);
        }
        last.unwrap()
    }
}

async fn an_edit_through_one_instance_is_read_through_the_other_at_once(app: TestApp) {
    if app.skips_memory("a second process cannot share memory://") {
        return;
    }
    let second = Second::start(&app);
    let item = app.feedback(json!({"title": "Version 0"})).await;
    let info = json!({"id": item["id"]});
    for version in 1..=10 {
        let before = second
            .cached(&app.key, "feedbacks.info", info.clone())
            .await;
        assert_eq!(before.ok()["title"], format!("Version {}", version - 1));
        let list = second.cached(&app.key, "feedbacks.list", json!({})).await;
        assert_eq!(list.each("title"), [format!("Version {}", version - 1)]);

        app.team_data(
            "feedbacks.update",
            json!({"id": item["id"], "title": format!("Version {version}")}),
        )
        .await;
        let after = second.call(&app.key, "feedbacks.info", info.clone()).await;
        assert_eq!(after.ok()["title"], format!("Version {version}"));
        let list = second.call(&app.key, "feedbacks.list", json!({})).await;
        assert_eq!(list.each("title"), [format!("Version {version}")]);
    }
}

async fn a_key_deleted_through_one_instance_fails_at_once_on_the_other(app: TestApp) {
    if app.skips_memory("a second process cannot share memory://") {
        return;
    }
    let second = Second::start(&app);
    for _ in 0..5 {
        let (key, key_id) = app.key_with(Role::Admin, false).await;
        second
            .cached(&key, "feedback-boards.list", json!({}))
            .await
            .ok();
        app.team_data("api-keys.delete", json!({"id": key_id}))
            .await;
        second
            .call(&key, "feedback-boards.list", json!({}))
            .await
            .assert_error(401, "Authentication required");
    }
}
