//! Prometheus metrics (issue 23), on a listener of their own (`SOUNDING_METRICS_BIND`), never
//! the API's: `GET /metrics` in the Prometheus text format.
//!
//! The adapters record through the `metrics` facade (requests and the rate limit in
//! `sounding-http-actix`, deliveries in `webhook_worker`); this module installs the recorder
//! (`metrics-exporter-prometheus`), names and describes what is exported, and at each scrape
//! reads what is state rather than events: the process (`metrics-process`), the database pool
//! and the webhook backlog. Every label takes a bounded set of values.

use std::{
    io,
    net::{SocketAddr, TcpListener},
    sync::{Mutex, PoisonError},
    time::Duration,
};

use actix_web::{dev::ServerHandle, http::header::ContentType, web, App, HttpResponse, HttpServer};
use anyhow::{anyhow, Context as _};
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use sounding_http_actix::REQUEST_DURATION_SECONDS;
use tokio::task::JoinHandle;

use crate::storage::Storage;

/// Webhook delivery attempts, by outcome (`delivered`, `retry`, `failed`).
pub const WEBHOOK_DELIVERIES_TOTAL: &str = "sounding_webhook_deliveries_total";
/// Deliveries pending (due or waiting for a retry), counted up to [`PENDING_AT_MOST`].
pub const WEBHOOK_PENDING: &str = "sounding_webhook_pending";
/// From an event's fan-out to its delivery's successful attempt.
pub const WEBHOOK_DELIVERY_LAG_SECONDS: &str = "sounding_webhook_delivery_lag_seconds";
/// Open database connections of the request pool, by state (`in_use`, `idle`).
pub const DB_POOL_CONNECTIONS: &str = "sounding_db_pool_connections";
/// The pending gauge stops counting here, so a scrape's cost stays bounded under any backlog.
pub const PENDING_AT_MOST: i64 = 100_000;
/// The delivery outcomes, each exported from the start (at 0).
pub const OUTCOMES: [&str; 3] = ["delivered", "retry", "failed"];

/// How long a scrape waits for the backlog count before leaving the gauge as it was.
const PENDING_BUDGET: Duration = Duration::from_millis(500);
/// How often histogram samples are folded into their buckets between scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);
const REQUEST_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
const LAG_BUCKETS: [f64; 14] = [
    0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 3600.0, 21600.0, 86400.0,
];

/// The metrics listener of a running server.
pub(crate) struct MetricsEndpoint {
    pub(crate) addr: SocketAddr,
    handle: ServerHandle,
    join: JoinHandle<io::Result<()>>,
    upkeep: JoinHandle<()>,
}

impl MetricsEndpoint {
    /// Installs the recorder (once per process), binds `bind` and serves `GET /metrics`.
    pub(crate) fn start(bind: &str, storage: Storage) -> anyhow::Result<Self> {
        let recorder = recorder()?;
        let listener = TcpListener::bind(bind)
            .with_context(|| format!("cannot listen for metrics on {bind}"))?;
        let addr = listener.local_addr()?;
        let scrape = web::Data::new(Scrape {
            recorder: recorder.clone(),
            storage,
            process: metrics_process::Collector::default(),
        });
        scrape.process.describe();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(scrape.clone())
                .route("/metrics", web::get().to(metrics))
                .default_service(web::to(HttpResponse::NotFound))
        })
        .workers(1)
        .disable_signals()
        .shutdown_timeout(1)
        .listen(listener)?
        .run();
        let handle = server.handle();
        let join = tokio::spawn(server);
        let upkeep = tokio::spawn(async move {
            loop {
                tokio::time::sleep(UPKEEP_EVERY).await;
                recorder.run_upkeep();
            }
        });
        tracing::info!("serving Prometheus metrics at http://{addr}/metrics");
        Ok(Self {
            addr,
            handle,
            join,
            upkeep,
        })
    }

    pub(crate) async fn stop(self) {
        self.handle.stop(true).await;
        self.upkeep.abort();
        if let Ok(Err(e)) = self.join.await {
            tracing::warn!("the metrics listener ended with an error: {e}");
        }
    }
}

struct Scrape {
    recorder: PrometheusHandle,
    storage: Storage,
    process: metrics_process::Collector,
}

async fn metrics(scrape: web::Data<Scrape>) -> HttpResponse {
    scrape.process.collect();
    if let Some(pool) = scrape.storage.pool_connections() {
        metrics::gauge!(DB_POOL_CONNECTIONS, "state" => "in_use").set(pool.in_use);
        metrics::gauge!(DB_POOL_CONNECTIONS, "state" => "idle").set(pool.idle);
    }
    let store = scrape.storage.store();
    // A failed count shows as NaN rather than as the last count, which would look current.
    let pending =
        match tokio::time::timeout(PENDING_BUDGET, store.pending_deliveries(PENDING_AT_MOST)).await
        {
            Ok(Ok(pending)) => pending as f64,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "metrics: cannot count pending deliveries");
                f64::NAN
            }
            Err(_) => {
                tracing::warn!("metrics: counting pending deliveries took too long");
                f64::NAN
            }
        };
    metrics::gauge!(WEBHOOK_PENDING).set(pending);
    HttpResponse::Ok()
        .content_type(ContentType(
            "text/plain; version=0.0.4; charset=utf-8"
                .parse()
                .expect("a valid media type"),
        ))
        .body(scrape.recorder.render())
}

/// The process's Prometheus recorder, installed as the `metrics` facade's global recorder on
/// first use (a process has one; servers started in one process share it).
fn recorder() -> anyhow::Result<PrometheusHandle> {
    static RECORDER: Mutex<Option<PrometheusHandle>> = Mutex::new(None);
    let mut installed = RECORDER.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(handle) = &*installed {
        return Ok(handle.clone());
    }
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full(REQUEST_DURATION_SECONDS.to_owned()),
            &REQUEST_BUCKETS,
        )
        .and_then(|b| {
            b.set_buckets_for_metric(
                Matcher::Full(WEBHOOK_DELIVERY_LAG_SECONDS.to_owned()),
                &LAG_BUCKETS,
            )
        })
        .and_then(PrometheusBuilder::install_recorder)
        .map_err(|e| anyhow!("cannot install the metrics recorder: {e}"))?;
    describe();
    *installed = Some(handle.clone());
    Ok(handle)
}

fn describe() {
    sounding_http_actix::describe_metrics();
    metrics::describe_counter!(
        WEBHOOK_DELIVERIES_TOTAL,
        "Webhook delivery attempts by outcome: delivered, retry (failed, tried again later) or failed (given up)."
    );
    metrics::describe_gauge!(
        WEBHOOK_PENDING,
        "Webhook deliveries pending (due or waiting for a retry), counted up to 100000; NaN when the last count failed."
    );
    metrics::describe_histogram!(
        WEBHOOK_DELIVERY_LAG_SECONDS,
        Unit::Seconds,
        "Time from a delivery's queueing (its fan-out or redelivery) to its successful attempt."
    );
    metrics::describe_gauge!(
        DB_POOL_CONNECTIONS,
        "Open database connections of the request pool, by state (in_use, idle)."
    );
    // Exported from the start, so a rate or an alert has a series before the first attempt.
    for outcome in OUTCOMES {
        metrics::counter!(WEBHOOK_DELIVERIES_TOTAL, "outcome" => outcome).absolute(0);
    }
}
