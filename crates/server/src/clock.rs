//! The real clock the server hands to the use cases (tests inject their own `Clock`).

use sounding_domain::{ports::Clock, Timestamp};
use time::OffsetDateTime;

#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_offset(OffsetDateTime::now_utc())
    }
}
