//! Winding a server down without dropping what clients already sent (issue 23).
//!
//! actix's graceful stop answers the requests its handlers are running, but drops what it has
//! not yet started: a request that arrived on an idle keep-alive connection, pipelined
//! requests, connections still in the accept queue. A client that sent such a request just
//! before the signal sees the connection close without a status line.
//!
//! So a stop first *drains*: the server keeps accepting and answering, every answer carries
//! `Connection: close` (a client's next request opens a new connection instead of racing the
//! close), and `/readyz` answers 503. Once no request has been in flight for [`QUIET`] (or
//! after [`DRAIN_LIMIT`] under steady load), actix's graceful stop closes the listener and
//! waits for the requests still running. Everything sent before the signal has arrived by
//! then; a keep-alive connection that stayed idle through the whole drain is closed by that
//! stop, and a request it sends at that very instant can still meet the close, as with any
//! HTTP/1.1 server closing an idle connection.

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use actix_web::{
    body::MessageBody,
    dev::{ServerHandle, ServiceRequest, ServiceResponse},
    http::ConnectionType,
    middleware::Next,
    web, Error,
};

/// How long no request must have been in flight before the listener closes.
pub const QUIET: Duration = Duration::from_millis(150);
/// The longest a drain lasts under steady load: clients that keep sending after the signal
/// are cut off then (their requests in flight are still answered).
pub const DRAIN_LIMIT: Duration = Duration::from_secs(3);
/// How often the drain looks at the traffic.
const TICK: Duration = Duration::from_millis(10);

/// The requests a server is answering, and whether it is winding down. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Traffic(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    in_flight: AtomicUsize,
    /// Requests begun since start; a change means traffic even if none is in flight now.
    started: AtomicU64,
    draining: AtomicBool,
}

impl Traffic {
    /// Whether a stop is under way (answers close their connection, `/readyz` is 503).
    pub fn is_draining(&self) -> bool {
        self.0.draining.load(Ordering::Relaxed)
    }

    /// Requests whose handlers are running now. A streamed body may still be going out after
    /// its handler returned: actix's graceful stop waits for those.
    pub fn in_flight(&self) -> usize {
        self.0.in_flight.load(Ordering::Relaxed)
    }

    /// Drains (see the module's comment), then stops the server gracefully: it stops
    /// accepting and waits (up to its shutdown timeout) for the requests still running.
    pub async fn stop(&self, handle: &ServerHandle) {
        self.drain(QUIET, DRAIN_LIMIT).await;
        handle.stop(true).await;
    }

    /// Marks the server as draining and returns once no request has been in flight for
    /// `quiet`, or after `limit`.
    pub async fn drain(&self, quiet: Duration, limit: Duration) {
        self.0.draining.store(true, Ordering::Relaxed);
        let began = Instant::now();
        let mut quiet_since: Option<Instant> = None;
        let mut seen = self.0.started.load(Ordering::Relaxed);
        while began.elapsed() < limit {
            let started = self.0.started.load(Ordering::Relaxed);
            if self.in_flight() > 0 || started != seen {
                quiet_since = None;
                seen = started;
            } else if quiet_since.get_or_insert_with(Instant::now).elapsed() >= quiet {
                return;
            }
            tokio::time::sleep(TICK).await;
        }
        tracing::info!(
            in_flight = self.in_flight(),
            "requests kept coming or running; closing the listener after {limit:?} of draining"
        );
    }

    fn begin(&self) -> InFlight {
        self.0.started.fetch_add(1, Ordering::Relaxed);
        self.0.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self.clone())
    }
}

/// One request in flight; counted out when dropped, answered or not.
struct InFlight(Traffic);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0 .0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Middleware: counts the request in flight and, while draining, closes its connection after
/// the answer.
pub(crate) async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let Some(traffic) = req.app_data::<web::Data<Traffic>>().cloned() else {
        return next.call(req).await;
    };
    let _in_flight = traffic.begin();
    let mut res = next.call(req).await?;
    if traffic.is_draining() {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_drain_waits_for_the_requests_in_flight_and_then_for_quiet() {
        let traffic = Traffic::default();
        let request = traffic.begin();
        let drain = tokio::spawn({
            let traffic = traffic.clone();
            async move {
                let began = Instant::now();
                traffic
                    .drain(Duration::from_millis(50), Duration::from_secs(5))
                    .await;
                began.elapsed()
            }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(traffic.is_draining());
        assert!(!drain.is_finished(), "drained with a request in flight");
        drop(request);
        let took = drain.await.unwrap();
        assert!(took >= Duration::from_millis(250), "took {took:?}");
        assert_eq!(traffic.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_drain_under_steady_traffic_ends_at_its_limit() {
        let traffic = Traffic::default();
        let _long = traffic.begin();
        let began = Instant::now();
        traffic
            .drain(Duration::from_millis(10), Duration::from_millis(100))
            .await;
        assert!(began.elapsed() >= Duration::from_millis(100));
        assert!(began.elapsed() < Duration::from_secs(2));
    }
}
