//! The webhook sender adapter (decisions §6): implements the domain's `WebhookSender` port
//! with reqwest. One call is one attempt: check the target again, sign the body (Standard
//! Webhooks), post it without following redirects, and report what came back. Retries,
//! backoff and 410 handling belong to the caller; this crate only reports.
//!
//! Server-side request forgery is refused twice: the URL is re-checked at send time (a literal
//! address never reaches a resolver, so it is checked here), and names are resolved through a
//! [`FilteringResolver`] that drops non-public addresses, so the connection goes only to
//! addresses that were checked.

mod limits;
pub mod resolve;
pub mod sign;

use std::{
    error::Error as StdError,
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use async_trait::async_trait;
use reqwest::{
    header::{HeaderMap, HeaderValue, CONTENT_TYPE, RETRY_AFTER},
    redirect, Response,
};
use sounding_domain::{
    ports::WebhookSender,
    webhook::{
        check_target_url, is_public, AttemptOutcome, TargetPolicy, WebhookRequest,
        RETRY_HORIZON_SECONDS,
    },
};
use url::{Host, Url};

use crate::limits::TargetLimits;
pub use crate::resolve::{
    FilteringResolver, NoAddress, NonPublicTarget, SystemHostResolver, SystemResolver,
};
/// reqwest's resolver interface, re-exported so callers can inject a resolver (tests map names
/// to loopback addresses) without depending on reqwest themselves.
pub use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Sent as `user-agent`, so receivers can tell deliveries apart in their logs.
pub const USER_AGENT: &str = concat!("Sounding-Webhooks/", env!("CARGO_PKG_VERSION"));

/// How much of a response body is read before the connection is dropped: enough to let small
/// answers finish (and the connection be reused), never enough to matter for memory.
pub const MAX_RESPONSE_BODY: usize = 64 * 1024;

/// How the sender behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SenderOptions {
    /// Whether http and private addresses are allowed (local use and tests only).
    pub policy: TargetPolicy,
    /// The whole attempt, from connecting to the end of the (capped) response body.
    pub timeout: Duration,
    /// Establishing the connection, TLS included.
    pub connect_timeout: Duration,
    /// The most concurrent attempts to one target (scheme, host, port); fewer while it shows
    /// strain (`limits`). Further attempts wait.
    pub max_in_flight_per_target: usize,
}

impl Default for SenderOptions {
    fn default() -> Self {
        Self {
            policy: TargetPolicy::default(),
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            max_in_flight_per_target: 16,
        }
    }
}

/// The HTTP client could not be built (e.g. the TLS backend failed to initialise).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the webhook HTTP client: {0}")]
pub struct BuildError(#[source] reqwest::Error);

/// Posts webhook attempts with reqwest (rustls, HTTP/1.1).
pub struct ReqwestSender {
    client: reqwest::Client,
    options: SenderOptions,
    limits: TargetLimits,
}

impl std::fmt::Debug for ReqwestSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReqwestSender")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ReqwestSender {
    /// A sender resolving names with the operating system's resolver.
    pub fn new(options: SenderOptions) -> Result<Self, BuildError> {
        Self::with_resolver(options, Arc::new(SystemResolver))
    }

    /// A sender resolving names with `resolver`; the target policy's address filter is applied
    /// on top of it, so a resolver cannot lift the policy.
    pub fn with_resolver(
        options: SenderOptions,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Self, BuildError> {
        let client = reqwest::Client::builder()
            // A 3xx is the target's answer, not an instruction: following it could lead to
            // an address the policy forbids, and the signature binds no URL anyway.
            .redirect(redirect::Policy::none())
            // A proxy would resolve the name itself, past the address filter.
            .no_proxy()
            .https_only(!options.policy.allow_private)
            .timeout(options.timeout)
            .connect_timeout(options.connect_timeout)
            .user_agent(USER_AGENT)
            .use_rustls_tls()
            .dns_resolver(Arc::new(FilteringResolver::new(resolver, options.policy)))
            .build()
            .map_err(BuildError)?;
        Ok(Self {
            client,
            options,
            limits: TargetLimits::new(options.max_in_flight_per_target),
        })
    }

    pub fn options(&self) -> &SenderOptions {
        &self.options
    }

    /// The URL as it may be posted to now: the subscription-time checks again (the policy may
    /// have changed since), plus the address check for a literal IP, which never reaches the
    /// resolver.
    fn target(&self, raw: &str) -> Result<Url, String> {
        let url = check_target_url(raw, self.options.policy).map_err(|e| e.to_string())?;
        if !self.options.policy.allow_private {
            let literal = match url.host() {
                Some(Host::Ipv4(ip)) => Some(ip.into()),
                Some(Host::Ipv6(ip)) => Some(ip.into()),
                _ => None,
            };
            if literal.is_some_and(|ip| !is_public(ip)) {
                return Err(NonPublicTarget.to_string());
            }
        }
        Ok(url)
    }

    /// The attempt's headers: content type, id, timestamp and signature. Built before waiting
    /// for a slot, so an attempt that cannot be signed fails at once.
    fn headers(request: &WebhookRequest) -> Result<HeaderMap, String> {
        let signature = sign::sign(
            &request.secret,
            &request.webhook_id,
            request.timestamp,
            request.body.as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        let mut headers = HeaderMap::with_capacity(4);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            "webhook-id",
            HeaderValue::from_str(&request.webhook_id)
                .map_err(|_| "webhook-id is not a valid header value".to_owned())?,
        );
        headers.insert("webhook-timestamp", HeaderValue::from(request.timestamp));
        headers.insert(
            "webhook-signature",
            HeaderValue::from_str(&signature)
                .map_err(|_| "signature is not a valid header value".to_owned())?,
        );
        Ok(headers)
    }

    /// A short reason for a failed request, built from the error's kind and innermost cause.
    /// reqwest's own message is not used because it quotes the URL, whose query string may
    /// carry a receiver's token.
    fn describe(&self, error: &reqwest::Error) -> String {
        if let Some(blocked) = find_cause::<NonPublicTarget>(error) {
            return blocked.to_string();
        }
        if let Some(none) = find_cause::<NoAddress>(error) {
            return none.to_string();
        }
        if error.is_connect() {
            // hyper-util's connector labels resolver failures so; its error type is private.
            if chain(error).any(|e| e.to_string() == "dns error") {
                return format!("name resolution failed: {}", root_cause(error));
            }
            if error.is_timeout() {
                return format!(
                    "connect timeout: no connection within {:?}",
                    self.options.connect_timeout
                );
            }
            return format!("connection failed: {}", root_cause(error));
        }
        if error.is_timeout() {
            return format!("timeout: no response within {:?}", self.options.timeout);
        }
        format!("request failed: {}", root_cause(error))
    }
}

#[async_trait]
impl WebhookSender for ReqwestSender {
    async fn send(&self, request: &WebhookRequest) -> AttemptOutcome {
        let url = match self.target(&request.url) {
            Ok(url) => url,
            Err(error) => return failed(Duration::ZERO, error),
        };
        let headers = match Self::headers(request) {
            Ok(headers) => headers,
            Err(error) => return failed(Duration::ZERO, error),
        };
        // The duration counts from the free slot on: it tells how the target answered, not
        // how long the attempt queued behind others to the same target.
        let slot = self.limits.acquire(&url).await;
        let outcome = self.post(url, headers, request).await;
        slot.finish(outcome.strains_target(self.options.timeout));
        outcome
    }

    fn attempts_at_once(&self, target_url: &str) -> usize {
        match Url::parse(target_url) {
            Ok(url) => self.limits.cap(&url),
            // It will fail before taking a slot anyway.
            Err(_) => self.options.max_in_flight_per_target,
        }
    }
}

impl ReqwestSender {
    /// Posts the attempt and reads what came back.
    async fn post(&self, url: Url, headers: HeaderMap, request: &WebhookRequest) -> AttemptOutcome {
        let started = Instant::now();
        let sent = self
            .client
            .post(url)
            .headers(headers)
            .body(request.body.clone())
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => return failed(started.elapsed(), self.describe(&error)),
        };
        let status = response.status().as_u16();
        let retry_after = match status {
            429 | 503 => response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| parse_retry_after(value, SystemTime::now())),
            _ => None,
        };
        // The body's content does not matter and a failure to read it changes nothing: the
        // status is the answer.
        drain(response).await;
        let error = match status {
            200..=299 => None,
            300..=399 => Some(format!(
                "target answered {status}; redirects are not followed"
            )),
            _ => Some(format!("target answered {status}")),
        };
        AttemptOutcome {
            status: Some(status),
            duration: started.elapsed(),
            error,
            retry_after,
        }
    }
}

fn failed(duration: Duration, error: String) -> AttemptOutcome {
    AttemptOutcome {
        status: None,
        duration,
        error: Some(error),
        retry_after: None,
    }
}

/// Reads and discards at most [`MAX_RESPONSE_BODY`] bytes, chunk by chunk, then drops the
/// response (closing the connection if the body went on).
async fn drain(mut response: Response) {
    let mut read = 0usize;
    while read < MAX_RESPONSE_BODY {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
}

/// `Retry-After` as delta-seconds or an HTTP date, capped at the retry horizon so a hostile
/// value cannot push a delivery past it (or overflow the caller's arithmetic).
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let delay = match value.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => httpdate::parse_http_date(value)
            .ok()?
            .duration_since(now)
            .unwrap_or(Duration::ZERO),
    };
    Some(delay.min(Duration::from_secs(RETRY_HORIZON_SECONDS)))
}

/// The error and its sources, outermost first.
fn chain<'a>(
    error: &'a (dyn StdError + 'static),
) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
    std::iter::successors(Some(error), |&e| e.source())
}

fn find_cause<'a, E: StdError + 'static>(error: &'a (dyn StdError + 'static)) -> Option<&'a E> {
    chain(error).find_map(|e| e.downcast_ref::<E>())
}

fn root_cause(error: &(dyn StdError + 'static)) -> String {
    chain(error)
        .last()
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_or_a_date_and_is_capped() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(90));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(90))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(90));
        assert_eq!(parse_retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("999999999999", now),
            Some(Duration::from_secs(RETRY_HORIZON_SECONDS))
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }

    #[test]
    fn options_default_to_the_documented_values() {
        let options = SenderOptions::default();
        assert_eq!(options.timeout, Duration::from_secs(10));
        assert_eq!(options.connect_timeout, Duration::from_secs(5));
        assert_eq!(options.max_in_flight_per_target, 16);
        assert!(!options.policy.allow_private);
        assert!(USER_AGENT.starts_with("Sounding-Webhooks/"));
    }
}
