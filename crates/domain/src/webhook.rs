//! Outgoing webhooks (decisions §6): subscriptions of a target URL to one event, the rules a
//! target must meet, the signing secret, and the retry schedule of a delivery.

use std::{
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
    time::Duration,
};

use base64::{engine::general_purpose::STANDARD, Engine as _};
use rand::RngCore;
use url::{Host, Url};

use crate::{
    error::{DomainError, DomainResult},
    event::EventKind,
    ids::{DeliveryId, EventId, TeamId, WebhookId},
    page::PageRequest,
    timestamp::Timestamp,
};

/// The prefix of a signing secret (Standard Webhooks).
pub const SECRET_PREFIX: &str = "whsec_";

/// A target URL subscribed to one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSubscription {
    /// Time-ordered UUID; deliveries name it.
    pub id: WebhookId,
    /// The team whose events it receives.
    pub team_id: TeamId,
    /// Where deliveries are POSTed: normalised, and checked by [`check_target_url`] (and the
    /// addresses it resolves to) at subscription. One subscription per team, target and event.
    pub target_url: String,
    /// The one event it receives.
    pub event: EventKind,
    /// `whsec_` + base64 of 32 random bytes; shown once, at subscription.
    pub secret: String,
    /// When it was subscribed; a repeated subscribe answers the existing one, with this date.
    pub created_at: Timestamp,
}

impl WebhookSubscription {
    /// Whether it receives the event named `event` of `team`: fan-out makes it a delivery of
    /// such an event, and an event no subscription wants is written fanned out.
    pub fn wants(&self, team: TeamId, event: &str) -> bool {
        self.team_id == team && self.event.as_str() == event
    }
}

/// A new signing secret from the operating system's CSPRNG.
pub fn new_secret() -> String {
    let mut key = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(key))
}

/// Whether targets may be http or private addresses (local use and tests only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TargetPolicy {
    /// Admit `http` and any host, private, loopback or local ones included (local use and
    /// tests only).
    pub allow_private: bool,
}

/// Checks a target URL as far as it can be checked without resolving it: http(s) only, https
/// unless private targets are allowed, no credentials, and no literal address or `localhost`
/// that is not public. The resolved addresses are checked again when connecting.
///
/// ```
/// use sounding_domain::webhook::{check_target_url, TargetPolicy};
///
/// let strict = TargetPolicy::default();
/// assert!(check_target_url("https://hooks.example.com/sounding", strict).is_ok());
/// assert_eq!(
///     check_target_url("http://hooks.example.com/", strict).unwrap_err().to_string(),
///     "target_url must use https"
/// );
/// assert!(check_target_url("https://10.0.0.1/", strict).is_err());
/// assert!(check_target_url("https://localhost/", strict).is_err());
/// let open = TargetPolicy { allow_private: true };
/// assert!(check_target_url("http://127.0.0.1:9000/hook", open).is_ok());
/// ```
pub fn check_target_url(raw: &str, policy: TargetPolicy) -> DomainResult<Url> {
    let invalid = |why: &str| DomainError::invalid(format!("target_url {why}"));
    let url = Url::parse(raw.trim()).map_err(|_| invalid("must be an absolute http(s) URL"))?;
    match url.scheme() {
        "https" => {}
        "http" if policy.allow_private => {}
        "http" => return Err(invalid("must use https")),
        _ => return Err(invalid("must be an absolute http(s) URL")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("must not carry credentials"));
    }
    if raw.trim().chars().count() > crate::text::URL_MAX {
        return Err(invalid("must be at most 2048 characters"));
    }
    if policy.allow_private {
        return Ok(url);
    }
    match url.host() {
        None => Err(invalid("must name a host")),
        Some(Host::Ipv4(ip)) if !is_public(IpAddr::V4(ip)) => Err(invalid(
            "must not point at a private, loopback or reserved address",
        )),
        Some(Host::Ipv6(ip)) if !is_public(IpAddr::V6(ip)) => Err(invalid(
            "must not point at a private, loopback or reserved address",
        )),
        Some(Host::Domain(name)) if is_local_name(name) => {
            Err(invalid("must not point at a local host name"))
        }
        Some(_) => Ok(url),
    }
}

fn is_local_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name.ends_with(".local")
        || name.ends_with(".internal")
}

/// Whether an address is globally reachable: not loopback, private, link-local, shared
/// (CGNAT), documentation, benchmarking, multicast, reserved or unspecified.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            is_public_v6(v6)
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link local
        || (first & 0xffc0) == 0xfec0 // site local (deprecated)
        || first == 0x2001 && ip.segments()[1] == 0x0db8 // documentation
        || first == 0x0064 && ip.segments()[1] == 0xff9b // NAT64 can reach private v4
        || ip.to_ipv4().is_some_and(|v4| !is_public_v4(v4))
        || embedded_v4(ip).iter().any(|v4| !is_public_v4(*v4)))
}

/// The IPv4 addresses a transition address carries, which relays reach on its behalf:
/// 6to4 (`2002::/16`, RFC 3056) holds one in bits 16..48; Teredo (`2001:0::/32`, RFC 4380)
/// holds its server in bits 32..64 and its client, every bit inverted, in the last 32.
/// Without this, `2002:7f00:1::1` or a Teredo address of `10.0.0.1` would pass as public.
fn embedded_v4(ip: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = ip.segments();
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match (s[0], s[1]) {
        (0x2002, _) => vec![v4(s[1], s[2])],
        (0x2001, 0x0000) => vec![v4(s[2], s[3]), v4(!s[6], !s[7])],
        _ => Vec::new(),
    }
}

/// One attempt to deliver an event to a target, as the sender port receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// The target, as the delivery recorded it.
    pub url: String,
    /// `webhook-id`: the delivery's id, the same on every retry.
    pub webhook_id: String,
    /// `webhook-timestamp`: Unix seconds of this attempt.
    pub timestamp: i64,
    /// The JSON body, exactly as signed.
    pub body: String,
    /// The subscription's `whsec_…` secret.
    pub secret: String,
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// The response status, when a response arrived.
    pub status: Option<u16>,
    /// How long the attempt took, up to its response or its failure.
    pub duration: Duration,
    /// Why the attempt failed without a response (timeout, refused, blocked address), or
    /// a note on a failing response.
    pub error: Option<String>,
    /// The target's `Retry-After` on 429 or 503.
    pub retry_after: Option<Duration>,
}

impl AttemptOutcome {
    /// Whether the target answered 2xx: the delivery is done.
    pub fn delivered(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// 410 Gone: the target wants no more deliveries.
    pub fn gone(&self) -> bool {
        self.status == Some(410)
    }

    /// Whether the target shows strain, so fewer attempts should go to it at once: no answer
    /// at all, "too many requests", a server error, or an answer that took more than a quarter
    /// of the attempt's `timeout`.
    pub fn strains_target(&self, timeout: Duration) -> bool {
        match self.status {
            None | Some(429) | Some(500..=599) => true,
            Some(_) => self.duration > timeout / 4,
        }
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt.
    Pending,
    /// Delivered: the target answered 2xx; no more attempts.
    Delivered,
    /// Given up: retries exhausted, or the target said 410 Gone.
    Failed,
}

impl DeliveryStatus {
    /// The name on the wire and in storage (`pending`, `delivered`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
        }
    }

    /// Reads a wire name, exactly (the `status` filter of `automation.deliveries`); anything
    /// else is refused.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "pending" => Ok(Self::Pending),
            "delivered" => Ok(Self::Delivered),
            "failed" => Ok(Self::Failed),
            _ => Err(DomainError::invalid(
                "status must be one of pending, delivered, failed",
            )),
        }
    }
}

/// One event on its way to one subscription: what `automation.deliveries` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Also the `webhook-id` header, the same on every attempt.
    pub id: DeliveryId,
    /// The team of the event and the subscription.
    pub team_id: TeamId,
    /// The subscription it goes to; kept after that subscription is removed.
    pub webhook_id: WebhookId,
    /// The outbox event it carries.
    pub event_id: EventId,
    /// The event's name.
    pub event: String,
    /// The target as it was when the event fanned out.
    pub target_url: String,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts made so far; back to 0 when it is redelivered.
    pub attempts: i64,
    /// When it is due next; `None` once delivered or failed.
    pub next_attempt_at: Option<Timestamp>,
    /// When it was first attempted, from which the 24-hour retry horizon counts; `None` before
    /// the first attempt and again after a redelivery.
    pub first_attempt_at: Option<Timestamp>,
    /// When it was last attempted; `None` before the first attempt.
    pub last_attempt_at: Option<Timestamp>,
    /// The HTTP status of the last attempt; `None` when no response arrived, or before the
    /// first attempt.
    pub last_status_code: Option<i64>,
    /// Why the last attempt failed (see [`AttemptOutcome::error`]), or why the delivery was
    /// given up without one (`unsubscribed`); `None` otherwise.
    pub last_error: Option<String>,
    /// How long the last attempt took, in milliseconds.
    pub last_duration_ms: Option<i64>,
    /// When the event fanned out to the subscription.
    pub created_at: Timestamp,
}

impl Delivery {
    /// What fan-out makes of an event (`event_id`, named `event`) for `webhook` at `now`:
    /// pending, due at once, never attempted, to the target as it is now.
    pub fn fanned_out(
        id: DeliveryId,
        (event_id, event): (EventId, &str),
        webhook: &WebhookSubscription,
        now: Timestamp,
    ) -> Self {
        Delivery {
            id,
            team_id: webhook.team_id,
            webhook_id: webhook.id,
            event_id,
            event: event.to_owned(),
            target_url: webhook.target_url.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(now),
            first_attempt_at: None,
            last_attempt_at: None,
            last_status_code: None,
            last_error: None,
            last_duration_ms: None,
            created_at: now,
        }
    }

    /// When the delivery was last queued, from which its delivery lag counts: its fan-out or
    /// its latest redelivery, the time it was due while it is not yet attempted (both set
    /// it due at once); once it is being retried, its first attempt since (the wait before
    /// that attempt is then left out, a worker's pass at most).
    pub fn queued_at(&self) -> Timestamp {
        let since = if self.attempts == 0 {
            self.next_attempt_at
        } else {
            self.first_attempt_at
        };
        since.unwrap_or(self.created_at)
    }
}

/// A worker asking for due deliveries (`WebhookStore::lease_deliveries`): up to `limit` of
/// those due by `now`, held by `owner` for `seconds`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRequest {
    /// The worker's name; only it may record an attempt under the lease or give it back.
    pub owner: String,
    /// The worker's clock: deliveries due by it are leased, and the leases run from it.
    pub now: Timestamp,
    /// How long the leases last; an expired lease is free for any worker.
    pub seconds: i64,
    /// At most this many deliveries.
    pub limit: i64,
}

impl LeaseRequest {
    /// When the leases taken run out.
    pub fn until(&self) -> Timestamp {
        Timestamp::from_offset(
            self.now
                .as_offset()
                .saturating_add(time::Duration::seconds(self.seconds)),
        )
    }
}

/// A delivery a worker holds the lease of, with what it needs to attempt it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeasedDelivery {
    /// The delivery as stored when leased.
    pub delivery: Delivery,
    /// The event's payload, the body to send.
    pub body: String,
    /// The subscription's `whsec_…` secret, to sign the attempt with.
    pub secret: String,
}

/// What a worker decided after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptResult {
    /// The target answered 2xx: the delivery is done.
    Delivered,
    /// Try again at this time.
    Retry {
        /// When the next attempt is due: after the schedule's pause, or the target's
        /// `Retry-After` if that is longer.
        at: Timestamp,
    },
    /// Give up. `unsubscribe` when the target answered 410 Gone.
    Failed {
        /// The target answered 410 Gone: its subscription is removed too.
        unsubscribe: bool,
    },
}

/// One attempt as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// When the attempt ended.
    pub at: Timestamp,
    /// What the target answered, or why no answer came.
    pub outcome: AttemptOutcome,
    /// What the worker made of it.
    pub result: AttemptResult,
}

/// A validated `automation.deliveries`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryQuery {
    /// Only deliveries of this subscription; one that is not the team's gives an empty page.
    pub webhook_id: Option<WebhookId>,
    /// Only deliveries in this status.
    pub status: Option<DeliveryStatus>,
    /// Newest first.
    pub page: PageRequest,
}

/// Pauses after the 1st, 2nd, … failed attempt before the next (about 5 s, 30 s, 2 min,
/// 10 min, 30 min, 1 h, 2 h, 4 h, 8 h).
pub const RETRY_SCHEDULE_SECONDS: [u64; 9] = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800];

/// How long after the first attempt a delivery may still be retried.
pub const RETRY_HORIZON_SECONDS: u64 = 24 * 60 * 60;

/// The pause before the next attempt after `failed_attempts` failures, scaled by `scale` (1.0
/// in production; tests shorten it) and spread by `jitter` in `0.0..1.0` (±20 %). `None` when
/// the schedule is exhausted.
///
/// ```
/// use std::time::Duration;
/// use sounding_domain::webhook::retry_delay;
///
/// assert_eq!(retry_delay(1, 1.0, 0.5), Some(Duration::from_secs(5)));
/// // The second pause is 30 s, spread by -20 % to +20 %.
/// assert_eq!(retry_delay(2, 1.0, 0.0), Some(Duration::from_secs(24)));
/// assert_eq!(retry_delay(2, 1.0, 1.0), Some(Duration::from_secs(36)));
/// assert_eq!(retry_delay(10, 1.0, 0.5), None, "nine retries, then the schedule ends");
/// ```
pub fn retry_delay(failed_attempts: u32, scale: f64, jitter: f64) -> Option<Duration> {
    let index = usize::try_from(failed_attempts.checked_sub(1)?).ok()?;
    let base = *RETRY_SCHEDULE_SECONDS.get(index)? as f64 * scale;
    let spread = 0.8 + 0.4 * jitter.clamp(0.0, 1.0);
    Some(Duration::from_secs_f64((base * spread).max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_is_queued_at_its_fan_out_or_redelivery_and_retries_count_from_the_first_attempt()
    {
        let at = |secs: i64| Timestamp::from_unix_seconds(1_800_000_000 + secs).unwrap();
        let webhook = WebhookSubscription {
            id: crate::WebhookId::new(),
            team_id: crate::TeamId::new(),
            target_url: "https://hooks.example.com/".into(),
            event: EventKind::NewFeedback,
            secret: "whsec_x".into(),
            created_at: at(0),
        };
        let fanned = Delivery::fanned_out(
            DeliveryId::new(),
            (EventId::new(), "new_feedback"),
            &webhook,
            at(10),
        );
        assert_eq!(fanned.queued_at(), at(10));
        let retried = Delivery {
            attempts: 2,
            first_attempt_at: Some(at(11)),
            next_attempt_at: Some(at(40)),
            ..fanned.clone()
        };
        assert_eq!(retried.queued_at(), at(11));
        // A redelivery a week later: attempts and first attempt reset, due at once.
        let redelivered = Delivery {
            attempts: 0,
            first_attempt_at: None,
            next_attempt_at: Some(at(604_800)),
            ..retried
        };
        assert_eq!(redelivered.queued_at(), at(604_800));
    }

    #[test]
    fn a_target_urls_limit_counts_characters_not_bytes() {
        let policy = TargetPolicy::default();
        let url =
            |path_chars: usize| format!("https://hooks.example.com/{}", "é".repeat(path_chars));
        let prefix = "https://hooks.example.com/".len();
        // 2,048 characters (more than 2,048 bytes) pass; one more does not.
        let max = crate::text::URL_MAX;
        assert!(check_target_url(&url(max - prefix), policy).is_ok());
        let refused = check_target_url(&url(max - prefix + 1), policy).unwrap_err();
        assert!(
            refused.to_string().contains("at most 2048 characters"),
            "{refused}"
        );
    }

    #[test]
    fn no_answer_429_5xx_or_a_slow_answer_strains_the_target() {
        let timeout = Duration::from_secs(10);
        let outcome = |status: Option<u16>, millis: u64| AttemptOutcome {
            status,
            duration: Duration::from_millis(millis),
            error: None,
            retry_after: None,
        };
        for strained in [
            outcome(None, 10),
            outcome(Some(429), 10),
            outcome(Some(500), 10),
            outcome(Some(503), 10),
            outcome(Some(200), 2_600),
        ] {
            assert!(strained.strains_target(timeout), "{strained:?}");
        }
        for calm in [
            outcome(Some(200), 30),
            outcome(Some(404), 30),
            outcome(Some(410), 30),
            outcome(Some(204), 2_500),
        ] {
            assert!(!calm.strains_target(timeout), "{calm:?}");
        }
    }

    fn open() -> TargetPolicy {
        TargetPolicy {
            allow_private: true,
        }
    }

    #[test]
    fn private_and_non_https_targets_are_refused_by_default() {
        let strict = TargetPolicy::default();
        for bad in [
            "http://127.0.0.1/hook",
            "http://[::1]/hook",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest",
            "file:///etc/passwd",
            "https://localhost/hook",
            "https://127.0.0.1/",
            "https://[::1]/",
            "https://10.1.2.3/",
            "https://169.254.169.254/",
            "https://[::ffff:127.0.0.1]/",
            "https://100.64.0.1/",
            "https://0.0.0.0/",
            "https://user:pw@example.com/",
            "ftp://example.com/",
            "not a url",
        ] {
            assert!(check_target_url(bad, strict).is_err(), "{bad} accepted");
        }
        assert!(check_target_url("https://hooks.example.com/x?y=1", strict).is_ok());
        assert!(check_target_url("https://93.184.216.34/", strict).is_ok());
    }

    #[test]
    fn six_to_four_and_teredo_addresses_are_judged_by_the_ipv4_addresses_they_embed() {
        let public = |raw: &str| is_public(raw.parse().unwrap());
        // 6to4: the IPv4 address is bits 16..48.
        assert!(!public("2002:7f00:1::1"), "6to4 of 127.0.0.1");
        assert!(!public("2002:0a00:0001::1"), "6to4 of 10.0.0.1");
        assert!(!public("2002:c0a8:0101::1"), "6to4 of 192.168.1.1");
        assert!(!public("2002:a9fe:a9fe::"), "6to4 of 169.254.169.254");
        assert!(public("2002:0808:0808::1"), "6to4 of 8.8.8.8");
        // Teredo: server 65.54.227.120 in bits 32..64, client XOR 0xffffffff in the last 32.
        assert!(
            public("2001:0:4136:e378:8000:63bf:f7f7:fbfb"),
            "Teredo, client 8.8.4.4"
        );
        assert!(
            !public("2001:0:4136:e378:8000:63bf:3fff:fdd2"),
            "Teredo, client 192.0.2.45 (documentation)"
        );
        assert!(
            !public("2001:0:4136:e378:8000:63bf:f5ff:fffe"),
            "Teredo, client 10.0.0.1"
        );
        assert!(
            !public("2001:0:4136:e378:8000:63bf:3f57:fefe"),
            "Teredo, client 192.168.1.1"
        );
        assert!(
            !public("2001:0:7f00:1:8000:63bf:f7f7:fbfb"),
            "Teredo, server 127.0.0.1"
        );
        // Other 2001: addresses are not Teredo.
        assert!(public("2001:4860:4860::8888"));
        // The same rule refuses them as literal targets.
        let strict = TargetPolicy::default();
        for bad in [
            "https://[2002:7f00:1::1]/",
            "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",
        ] {
            assert!(check_target_url(bad, strict).is_err(), "{bad} accepted");
        }
        assert!(check_target_url("https://[2002:808:808::1]/", strict).is_ok());
    }

    #[test]
    fn allowing_private_targets_admits_http_and_loopback_only() {
        assert!(check_target_url("http://127.0.0.1:9000/hook", open()).is_ok());
        assert!(check_target_url("file:///etc/passwd", open()).is_err());
        let message = check_target_url("http://example.com", TargetPolicy::default())
            .unwrap_err()
            .to_string();
        assert_eq!(message, "target_url must use https");
    }

    #[test]
    fn secrets_are_prefixed_base64_of_32_bytes() {
        let secret = new_secret();
        let key = STANDARD
            .decode(secret.strip_prefix(SECRET_PREFIX).unwrap())
            .unwrap();
        assert_eq!(key.len(), 32);
        assert_ne!(secret, new_secret());
    }

    #[test]
    fn retries_back_off_with_bounded_jitter_and_end() {
        assert_eq!(retry_delay(0, 1.0, 0.5), None);
        assert_eq!(retry_delay(1, 1.0, 0.5), Some(Duration::from_secs(5)));
        assert_eq!(retry_delay(3, 1.0, 0.5), Some(Duration::from_secs(120)));
        assert_eq!(retry_delay(9, 1.0, 0.5), Some(Duration::from_secs(28800)));
        assert_eq!(retry_delay(10, 1.0, 0.5), None);
        let low = retry_delay(2, 1.0, 0.0).unwrap();
        let high = retry_delay(2, 1.0, 1.0).unwrap();
        assert_eq!((low.as_secs(), high.as_secs()), (24, 36));
        assert_eq!(retry_delay(1, 0.01, 0.5), Some(Duration::from_millis(50)));
    }
}
