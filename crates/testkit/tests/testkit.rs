//! The testkit as another project would use it: each test starts a server, on memory and on
//! SQLite, and drives it through the helpers.

use std::time::Duration;

use serde_json::json;
use sounding_testkit::{ApiError, TestServer};

async fn a_subscriber_posts_and_votes_and_the_webhooks_arrive_verified(server: TestServer) {
    let board = server.create_board("Ideas").await.unwrap();
    let feedback_hooks = server.webhook_receiver("new_feedback").await.unwrap();
    let vote_hooks = server.webhook_receiver("new_feedback_vote").await.unwrap();
    let jane = server.identify("jane@example.com").await.unwrap();
    assert_eq!(jane.data["email"], "jane@example.com");

    let item = server
        .call(
            "public/feedbacks.create",
            &jane.token,
            json!({ "title": "Dark mode", "boardId": board }),
        )
        .await
        .unwrap();
    let id = item["data"]["id"].as_str().unwrap().to_owned();
    let bob = server.identify("bob@example.com").await.unwrap();
    server
        .call(
            "public/feedback-votes.create",
            &bob.token,
            json!({ "feedbackId": id }),
        )
        .await
        .unwrap();

    let created = feedback_hooks
        .wait_for(1, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(created[0].event, "new_feedback");
    assert_eq!(created[0].body["data"]["id"], id.as_str());
    let voted = vote_hooks
        .wait_for(1, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(voted[0].event, "new_feedback_vote");
    assert_eq!((feedback_hooks.rejected(), vote_hooks.rejected()), (0, 0));

    let listed = server
        .call_as_owner("feedbacks.list", json!({ "boardId": board }))
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["feedbackVotesCount"], 1, "{listed}");
}

async fn an_error_reply_is_an_api_error_with_its_status_and_body(server: TestServer) {
    let err = server
        .call("teams.info", "not-a-key", json!({}))
        .await
        .unwrap_err();
    let api = err.downcast_ref::<ApiError>().expect("an ApiError");
    assert_eq!(api.status, 401);
    assert_eq!(api.body["statusCode"], 401);
    let err = server
        .call_as_owner("feedback-boards.create", json!({ "name": "" }))
        .await
        .unwrap_err();
    assert_eq!(err.downcast_ref::<ApiError>().unwrap().status, 400);
}

async fn dropping_the_server_stops_it(server: TestServer) {
    let base = server.base_url().to_owned();
    let health = |base: String| async move {
        reqwest::Client::new()
            .get(format!("{base}/healthz"))
            .timeout(Duration::from_secs(2))
            .send()
            .await
    };
    assert!(health(base.clone()).await.unwrap().status().is_success());
    drop(server);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while health(base.clone()).await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "still serving after the drop"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_dropped_receiver_takes_no_more_deliveries(server: TestServer) {
    let board = server.create_board("Ideas").await.unwrap();
    let hooks = server.webhook_receiver("new_feedback").await.unwrap();
    let create = |title: &'static str| {
        let body = json!({ "title": title, "boardId": board });
        server.call_as_owner("feedbacks.create", body)
    };
    create("First").await.unwrap();
    hooks.wait_for(1, Duration::from_secs(10)).await.unwrap();
    // The sender keeps its connection to the receiver alive: dropping the receiver closes it.
    drop(hooks);
    create("Second").await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let deliveries = server
        .call_as_owner("automation.deliveries", json!({ "limit": 10 }))
        .await
        .unwrap();
    let delivered = deliveries["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "delivered")
        .count();
    assert_eq!(delivered, 1, "{deliveries}");
}

macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(sounding_testkit::TestServer::start().await.unwrap()).await;
                }
            )*
        }
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let server = sounding_testkit::TestServer::builder().sqlite().start();
                    super::$name(server.await.unwrap()).await;
                }
            )*
        }
    };
}

on_both!(
    a_subscriber_posts_and_votes_and_the_webhooks_arrive_verified,
    an_error_reply_is_an_api_error_with_its_status_and_body,
    dropping_the_server_stops_it,
    a_dropped_receiver_takes_no_more_deliveries,
);
