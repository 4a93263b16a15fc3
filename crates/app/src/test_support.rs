//! Fixtures the use cases' unit tests share.

use sounding_domain::{ports::Clock, Timestamp};

/// A clock stopped at one instant, so tests can compare what the use cases stamp.
pub(crate) struct Fixed;

impl Clock for Fixed {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000).unwrap()
    }
}
