//! Rate limiting (decisions §8): fixed one-minute windows counted in memory by each instance.
//! The bucket is the API key (per-key quota), the subscriber (per-subscriber quota), or the
//! client's address when the request has no valid credential (per-subscriber quota). Every
//! response under the API prefixes carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
//! `X-RateLimit-Reset` (Unix seconds of the window's end); past the limit the answer is 429
//! with `Retry-After`. Windows are judged by the injected clock; windows that have ended are
//! swept once per minute, so memory holds only the buckets seen in the current window.

use std::{
    net::{IpAddr, Ipv4Addr},
    sync::atomic::{AtomicI64, Ordering},
};

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER},
    middleware::Next,
    web, Error, HttpMessage, ResponseError,
};
use dashmap::DashMap;
use sounding_domain::{
    access::Caller,
    ids::{ApiKeyId, SubscriberId},
    Timestamp,
};

use crate::{auth::middleware::Authentication, error::ApiError, state::ApiState, RateLimits};

pub const WINDOW_SECS: i64 = 60;

/// Who a request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bucket {
    Key(ApiKeyId),
    Subscriber(SubscriberId),
    Address(IpAddr),
}

impl Bucket {
    fn of(caller: Option<&Caller>, address: Option<IpAddr>) -> Self {
        match caller {
            Some(Caller::Team(holder)) => Bucket::Key(holder.key_id),
            Some(Caller::Subscriber(session)) => Bucket::Subscriber(session.subscriber.id),
            Some(Caller::Visitor(_)) | None => {
                Bucket::Address(address.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)))
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Window {
    start: i64,
    count: u32,
}

/// The verdict on one request, and the values of the rate-limit headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds at which the current window ends.
    pub reset: i64,
    /// Seconds until then, at least 1.
    pub retry_after: i64,
}

/// The counters of one instance; shared by all its workers.
#[derive(Debug)]
pub struct RateLimiter {
    limits: RateLimits,
    windows: DashMap<Bucket, Window>,
    /// Start of the window in which ended windows were last swept.
    swept: AtomicI64,
}

/// Start of the fixed window holding `now` (Unix seconds).
pub fn window_start(now: i64) -> i64 {
    now - now.rem_euclid(WINDOW_SECS)
}

impl RateLimiter {
    pub fn new(limits: RateLimits) -> Self {
        Self {
            limits,
            windows: DashMap::new(),
            swept: AtomicI64::new(i64::MIN),
        }
    }

    fn limit_for(&self, bucket: &Bucket) -> u32 {
        match bucket {
            Bucket::Key(_) => self.limits.per_key_per_minute,
            Bucket::Subscriber(_) | Bucket::Address(_) => self.limits.per_subscriber_per_minute,
        }
    }

    /// Counts one request against `bucket` at `now`.
    pub fn check(&self, bucket: Bucket, now: Timestamp) -> Decision {
        let now = now.unix_seconds();
        let start = window_start(now);
        self.sweep(start);
        let limit = self.limit_for(&bucket);
        let count = {
            let mut window = self
                .windows
                .entry(bucket)
                .or_insert(Window { start, count: 0 });
            if window.start != start {
                *window = Window { start, count: 0 };
            }
            window.count = window.count.saturating_add(1);
            window.count
        };
        let reset = start + WINDOW_SECS;
        Decision {
            allowed: count <= limit,
            limit,
            remaining: limit.saturating_sub(count),
            reset,
            retry_after: (reset - now).max(1),
        }
    }

    /// Drops the windows that ended, at most once per window.
    fn sweep(&self, current: i64) {
        let last = self.swept.load(Ordering::Relaxed);
        if last < current
            && self
                .swept
                .compare_exchange(last, current, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.windows.retain(|_, w| w.start >= current);
        }
    }

    /// Buckets currently held.
    #[cfg(test)]
    pub fn tracked(&self) -> usize {
        self.windows.len()
    }
}

/// The middleware: counts the request, refuses it past the limit, and stamps the headers on
/// whatever response comes back (errors included).
pub async fn enforce(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let (Some(limiter), Some(state)) = (
        req.app_data::<web::Data<RateLimiter>>().cloned(),
        req.app_data::<web::Data<ApiState>>().cloned(),
    ) else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let bucket = {
        let extensions = req.extensions();
        let caller = extensions
            .get::<Authentication>()
            .and_then(Authentication::caller);
        Bucket::of(caller, req.peer_addr().map(|a| a.ip()))
    };
    let decision = limiter.check(bucket, state.clock.now());

    let mut response = if decision.allowed {
        // Handlers and extractors turn their errors into responses, so every answer of the
        // API comes back here as a response and gets the headers.
        next.call(req).await?.map_into_boxed_body()
    } else {
        metrics::counter!(crate::request_metrics::RATE_LIMITED_TOTAL).increment(1);
        let mut res = req.into_response(ApiError::too_many_requests().error_response());
        set(res.headers_mut(), RETRY_AFTER, decision.retry_after);
        res
    };
    let headers = response.headers_mut();
    set(
        headers,
        HeaderName::from_static("x-ratelimit-limit"),
        decision.limit,
    );
    set(
        headers,
        HeaderName::from_static("x-ratelimit-remaining"),
        decision.remaining,
    );
    set(
        headers,
        HeaderName::from_static("x-ratelimit-reset"),
        decision.reset,
    );
    Ok(response)
}

fn set(headers: &mut HeaderMap, name: HeaderName, value: impl Into<i64>) {
    headers.insert(name, HeaderValue::from(value.into()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minute boundary: 30,000,000 minutes after the epoch.
    const START: i64 = 1_800_000_000;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix_seconds(secs).unwrap()
    }

    fn limiter(per_key: u32, per_subscriber: u32) -> RateLimiter {
        RateLimiter::new(RateLimits {
            per_key_per_minute: per_key,
            per_subscriber_per_minute: per_subscriber,
        })
    }

    #[test]
    fn windows_are_aligned_to_the_minute() {
        assert_eq!(window_start(START), START);
        assert_eq!(window_start(START + 59), START);
        assert_eq!(window_start(START + 60), START + 60);
        assert_eq!(window_start(START - 1), START - 60);
        assert_eq!(window_start(-1), -60);
    }

    #[test]
    fn the_limit_holds_within_a_window_and_resets_with_the_next() {
        let rl = limiter(3, 100);
        let key = Bucket::Key(ApiKeyId::new());
        let start = START;
        let remaining: Vec<(bool, u32)> = (0..4)
            .map(|i| rl.check(key, at(start + i)))
            .map(|d| (d.allowed, d.remaining))
            .collect();
        assert_eq!(remaining, [(true, 2), (true, 1), (true, 0), (false, 0)]);

        let refused = rl.check(key, at(start + 45));
        assert!(!refused.allowed);
        assert_eq!(refused.reset, start + 60);
        assert_eq!(refused.retry_after, 15);
        assert_eq!(refused.limit, 3);

        let next = rl.check(key, at(start + 60));
        assert!(next.allowed);
        assert_eq!((next.remaining, next.reset), (2, start + 120));
    }

    #[test]
    fn each_bucket_has_its_own_count_and_quota() {
        let rl = limiter(2, 1);
        let now = at(1_800_000_000);
        let sub = Bucket::Subscriber(SubscriberId::new());
        let ip = Bucket::Address("10.0.0.1".parse().unwrap());
        assert_eq!(rl.check(Bucket::Key(ApiKeyId::new()), now).limit, 2);
        assert!(rl.check(sub, now).allowed);
        assert!(!rl.check(sub, now).allowed);
        assert!(rl.check(ip, now).allowed);
        assert_eq!(rl.check(ip, now).limit, 1);
        assert!(
            rl.check(Bucket::Subscriber(SubscriberId::new()), now)
                .allowed
        );
    }

    #[test]
    fn retry_after_is_at_least_one_second() {
        let rl = limiter(0, 0);
        let d = rl.check(Bucket::Key(ApiKeyId::new()), at(START + 59));
        assert!(!d.allowed);
        assert_eq!(d.retry_after, 1);
    }

    #[test]
    fn ended_windows_are_swept() {
        let rl = limiter(10, 10);
        let start = START;
        for i in 0..50 {
            rl.check(Bucket::Subscriber(SubscriberId::new()), at(start + i % 60));
        }
        assert_eq!(rl.tracked(), 50);
        rl.check(Bucket::Key(ApiKeyId::new()), at(start + 60));
        assert_eq!(rl.tracked(), 1);
    }

    #[test]
    fn the_caller_chooses_the_bucket() {
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(Bucket::of(None, Some(ip)), Bucket::Address(ip));
        assert_eq!(
            Bucket::of(None, None),
            Bucket::Address(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
        );
    }
}
