//! The reqwest sender against receivers on 127.0.0.1: what is sent, how answers are reported,
//! and what the target policy refuses. No traffic leaves loopback.

mod support;

use std::{
    net::{IpAddr, Ipv4Addr},
    sync::{atomic::Ordering, Arc},
    time::{Duration, Instant, SystemTime},
};

use sounding_domain::{ports::WebhookSender, webhook::AttemptOutcome};
use sounding_webhooks::{ReqwestSender, SenderOptions, USER_AGENT};
use standardwebhooks::Webhook;
use support::{closed_port, hung_receiver, open, request, strict, Receiver, Script, StubResolver};

fn sender(options: SenderOptions) -> ReqwestSender {
    ReqwestSender::new(options).unwrap()
}

fn stub_sender(options: SenderOptions, name: &'static str, ip: IpAddr) -> ReqwestSender {
    ReqwestSender::with_resolver(options, Arc::new(StubResolver(vec![(name, ip)]))).unwrap()
}

const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn error(outcome: &AttemptOutcome) -> &str {
    outcome.error.as_deref().unwrap_or_default()
}

#[tokio::test]
async fn a_delivery_is_posted_signed_and_verifiable_by_an_independent_library() {
    let receiver = Receiver::start(Script::Status(200, vec![])).await;
    let request = request(receiver.url("http"));
    let outcome = sender(open()).send(&request).await;

    assert_eq!(outcome.status, Some(200));
    assert!(outcome.delivered());
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.retry_after, None);
    let recorded = receiver.requests();
    assert_eq!(recorded.len(), 1);
    let got = &recorded[0];
    assert_eq!(got.method, "POST");
    assert_eq!(got.path, "/hook?token=receiver-secret");
    assert_eq!(got.body, request.body.as_bytes());
    let header = |name: &str| got.headers.get(name).unwrap().to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "application/json");
    assert_eq!(header("user-agent"), USER_AGENT);
    assert_eq!(header("webhook-id"), request.webhook_id);
    assert_eq!(header("webhook-timestamp"), request.timestamp.to_string());
    assert!(header("webhook-signature").starts_with("v1,"));

    let verifier = Webhook::new(&request.secret).unwrap();
    verifier.verify(&got.body, &got.headers).unwrap();
    let tampered = request.body.replace("Dark mode", "Light mode");
    assert!(verifier.verify(tampered.as_bytes(), &got.headers).is_err());
    let other_secret = Webhook::new(&sounding_domain::webhook::new_secret()).unwrap();
    assert!(other_secret.verify(&got.body, &got.headers).is_err());
}

#[tokio::test]
async fn failing_answers_are_reported_with_their_status() {
    let receiver = Receiver::start(Script::Status(500, vec![])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, Some(500));
    assert!(!outcome.delivered());
    assert!(!outcome.gone());
    assert_eq!(outcome.retry_after, None);
    assert!(error(&outcome).contains("500"), "{outcome:?}");

    let receiver = Receiver::start(Script::Status(410, vec![])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, Some(410));
    assert!(outcome.gone());
    assert!(!outcome.delivered());
}

#[tokio::test]
async fn retry_after_is_read_on_429_and_503_only() {
    let receiver = Receiver::start(Script::Status(429, vec![("retry-after", "7".into())])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, Some(429));
    assert_eq!(outcome.retry_after, Some(Duration::from_secs(7)));

    let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
    let receiver = Receiver::start(Script::Status(503, vec![("retry-after", at)])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, Some(503));
    let after = outcome.retry_after.expect("retry_after from an HTTP date");
    assert!(
        (Duration::from_secs(115)..=Duration::from_secs(121)).contains(&after),
        "{after:?}"
    );

    let receiver = Receiver::start(Script::Status(500, vec![("retry-after", "7".into())])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.retry_after, None);
}

#[tokio::test]
async fn redirects_are_reported_not_followed() {
    let elsewhere = Receiver::start(Script::Status(200, vec![])).await;
    let location = elsewhere.url("http");
    let receiver = Receiver::start(Script::Status(302, vec![("location", location)])).await;
    let outcome = sender(open()).send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, Some(302));
    assert!(!outcome.delivered());
    assert!(error(&outcome).contains("redirect"), "{outcome:?}");
    assert_eq!(receiver.requests().len(), 1);
    assert_eq!(elsewhere.connections(), 0);
    assert!(elsewhere.requests().is_empty());
}

#[tokio::test]
async fn a_receiver_that_never_answers_times_out() {
    let (addr, _task) = hung_receiver().await;
    let options = SenderOptions {
        timeout: Duration::from_millis(300),
        ..open()
    };
    let outcome = sender(options)
        .send(&request(format!("http://{addr}/hook")))
        .await;
    assert_eq!(outcome.status, None);
    assert!(error(&outcome).contains("timeout"), "{outcome:?}");
    assert!(
        (Duration::from_millis(280)..Duration::from_secs(2)).contains(&outcome.duration),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_refused_connection_is_an_error_without_status() {
    let addr = closed_port().await;
    let url = format!("http://{addr}/hook?token=receiver-secret");
    let outcome = sender(open()).send(&request(url)).await;
    assert_eq!(outcome.status, None);
    assert!(
        error(&outcome).starts_with("connection failed"),
        "{outcome:?}"
    );
    // Errors are written for the delivery log: they never quote the URL or its query.
    assert!(!error(&outcome).contains("receiver-secret"), "{outcome:?}");
}

#[tokio::test]
async fn a_secret_that_does_not_decode_fails_the_attempt_before_sending() {
    let receiver = Receiver::start(Script::Status(200, vec![])).await;
    let mut request = request(receiver.url("http"));
    request.secret = "whsec_not base64!".to_owned();
    let outcome = sender(open()).send(&request).await;
    assert_eq!(outcome.status, None);
    assert!(error(&outcome).contains("secret"), "{outcome:?}");
    assert!(!error(&outcome).contains("not base64!"), "{outcome:?}");
    assert_eq!(receiver.connections(), 0);
}

#[tokio::test]
async fn strict_policy_refuses_loopback_literals_without_connecting() {
    let receiver = Receiver::start(Script::Status(200, vec![])).await;
    let sender = sender(strict());

    let outcome = sender.send(&request(receiver.url("http"))).await;
    assert_eq!(outcome.status, None);
    assert!(error(&outcome).contains("https"), "{outcome:?}");

    let outcome = sender.send(&request(receiver.url("https"))).await;
    assert_eq!(outcome.status, None);
    assert!(!error(&outcome).is_empty(), "{outcome:?}");

    let port = receiver.addr.port();
    let outcome = sender
        .send(&request(format!("https://[::ffff:127.0.0.1]:{port}/")))
        .await;
    assert_eq!(outcome.status, None);

    assert_eq!(receiver.connections(), 0);
}

#[tokio::test]
async fn strict_policy_refuses_names_resolving_to_private_addresses() {
    let receiver = Receiver::start(Script::Status(200, vec![])).await;
    let port = receiver.addr.port();
    let url = format!("https://hooks.test:{port}/hook");

    let outcome = stub_sender(strict(), "hooks.test", LOOPBACK)
        .send(&request(url.clone()))
        .await;
    assert_eq!(outcome.status, None);
    assert_eq!(
        outcome.error.as_deref(),
        Some("target resolves only to non-public addresses")
    );

    let private = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    let outcome = stub_sender(strict(), "hooks.test", private)
        .send(&request(url))
        .await;
    assert_eq!(
        outcome.error.as_deref(),
        Some("target resolves only to non-public addresses")
    );

    assert_eq!(receiver.connections(), 0);
}

#[tokio::test]
async fn allowing_private_targets_reaches_a_name_resolved_to_loopback() {
    let receiver = Receiver::start(Script::Status(204, vec![])).await;
    let port = receiver.addr.port();
    let request = request(format!("http://hooks.test:{port}/hook"));
    let outcome = stub_sender(open(), "hooks.test", LOOPBACK)
        .send(&request)
        .await;
    assert_eq!(outcome.status, Some(204), "{outcome:?}");
    assert!(outcome.delivered());
    let recorded = receiver.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        recorded[0].headers.get("host").unwrap(),
        &format!("hooks.test:{port}")
    );
}

#[tokio::test]
async fn an_endless_response_body_is_cut_off_and_the_status_kept() {
    let receiver = Receiver::start(Script::Endless).await;
    let options = SenderOptions {
        timeout: Duration::from_secs(5),
        ..open()
    };
    let started = Instant::now();
    let outcome = tokio::time::timeout(
        Duration::from_secs(4),
        sender(options).send(&request(receiver.url("http"))),
    )
    .await
    .expect("the attempt must not wait for the body to end");
    assert_eq!(outcome.status, Some(200));
    assert_eq!(outcome.error, None);
    assert!(started.elapsed() < Duration::from_secs(2), "{outcome:?}");
}

#[tokio::test]
async fn attempts_per_target_are_capped() {
    let receiver = Receiver::start(Script::Hold(Duration::from_millis(200))).await;
    let sender = Arc::new(sender(SenderOptions {
        max_in_flight_per_target: 4,
        ..open()
    }));
    let url = receiver.url("http");
    let started = Instant::now();
    let attempts: Vec<_> = (0..10)
        .map(|_| {
            let (sender, request) = (sender.clone(), request(url.clone()));
            tokio::spawn(async move { sender.send(&request).await })
        })
        .collect();
    for attempt in attempts {
        assert_eq!(attempt.await.unwrap().status, Some(200));
    }
    assert_eq!(receiver.requests().len(), 10);
    assert_eq!(receiver.state.max_in_flight.load(Ordering::SeqCst), 4);
    // Ten attempts, four at a time, 200 ms each: at least three rounds.
    assert!(started.elapsed() >= Duration::from_millis(590));
}

/// A target that answers 5xx is given fewer attempts at once (what a pass leases for it),
/// one that answers well keeps the most.
#[tokio::test]
async fn a_failing_target_gets_fewer_attempts_at_once() {
    let failing = Receiver::start(Script::Status(503, vec![])).await;
    let fine = Receiver::start(Script::Status(204, vec![])).await;
    let sender = sender(SenderOptions {
        max_in_flight_per_target: 8,
        ..open()
    });
    let (failing_url, fine_url) = (failing.url("http"), fine.url("http"));
    assert_eq!(sender.attempts_at_once(&failing_url), 8);
    for _ in 0..2 {
        assert_eq!(
            sender.send(&request(failing_url.clone())).await.status,
            Some(503)
        );
        assert_eq!(
            sender.send(&request(fine_url.clone())).await.status,
            Some(204)
        );
    }
    assert_eq!(sender.attempts_at_once(&failing_url), 2);
    assert_eq!(sender.attempts_at_once(&fine_url), 8);
}

#[tokio::test]
async fn a_name_that_does_not_resolve_is_an_error_without_status() {
    let outcome = stub_sender(open(), "hooks.test", LOOPBACK)
        .send(&request("http://elsewhere.test/hook".to_owned()))
        .await;
    assert_eq!(outcome.status, None);
    assert!(
        error(&outcome).starts_with("name resolution failed"),
        "{outcome:?}"
    );
}

/// The subscription-time resolver finds loopback for `localhost` and nothing for a name that
/// cannot exist, without panicking or waiting long.
#[tokio::test]
async fn the_host_resolver_reports_addresses_or_nothing() {
    use sounding_domain::ports::HostResolver;
    use sounding_webhooks::SystemHostResolver;
    let resolver = SystemHostResolver::default();
    let local = resolver.resolve("localhost").await;
    assert!(
        local.iter().all(|ip| ip.is_loopback()) && !local.is_empty(),
        "{local:?}"
    );
    let started = std::time::Instant::now();
    assert_eq!(
        resolver.resolve("no-such-host.invalid").await,
        Vec::<std::net::IpAddr>::new()
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
}
