//! Instants in UTC with millisecond precision: the precision the API prints and every
//! store keeps, so a value read back equals the value written.

use std::fmt;

use time::{format_description::well_known::Rfc3339, OffsetDateTime, PrimitiveDateTime, UtcOffset};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: Timestamp = Timestamp(OffsetDateTime::UNIX_EPOCH);

    pub fn from_offset(at: OffsetDateTime) -> Self {
        let utc = at.to_offset(UtcOffset::UTC);
        let millis = utc.millisecond();
        Self(
            utc.replace_nanosecond(u32::from(millis) * 1_000_000)
                .expect("valid nanosecond"),
        )
    }

    /// Parses RFC 3339 (any offset, normalised to UTC).
    pub fn parse_rfc3339(raw: &str) -> Option<Self> {
        OffsetDateTime::parse(raw, &Rfc3339)
            .ok()
            .map(Self::from_offset)
    }

    pub fn from_unix_seconds(secs: i64) -> Option<Self> {
        OffsetDateTime::from_unix_timestamp(secs)
            .ok()
            .map(Self::from_offset)
    }

    pub fn from_utc_primitive(at: PrimitiveDateTime) -> Self {
        Self::from_offset(at.assume_utc())
    }

    pub fn to_utc_primitive(self) -> PrimitiveDateTime {
        PrimitiveDateTime::new(self.0.date(), self.0.time())
    }

    pub fn unix_seconds(self) -> i64 {
        self.0.unix_timestamp()
    }

    pub fn as_offset(self) -> OffsetDateTime {
        self.0
    }

    pub fn plus_seconds(self, secs: i64) -> Self {
        Self(self.0 + time::Duration::seconds(secs))
    }

    /// `self` moved on by `pause`, kept to whole milliseconds.
    pub fn plus(self, pause: std::time::Duration) -> Self {
        let millis = i64::try_from(pause.as_millis()).unwrap_or(i64::MAX);
        Self::from_offset(self.0.saturating_add(time::Duration::milliseconds(millis)))
    }

    /// `2026-11-22T10:04:05.123Z`.
    pub fn to_rfc3339(self) -> String {
        let d = self.0;
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            d.year(),
            u8::from(d.month()),
            d.day(),
            d.hour(),
            d.minute(),
            d.second(),
            d.millisecond()
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn prints_utc_with_milliseconds_and_z() {
        let t = Timestamp::from_offset(datetime!(2026-11-22 11:04:05.123456 +01:00));
        assert_eq!(t.to_rfc3339(), "2026-11-22T10:04:05.123Z");
    }

    #[test]
    fn round_trips_through_a_primitive_datetime() {
        let t = Timestamp::from_offset(datetime!(2026-01-02 03:04:05.678 UTC));
        assert_eq!(Timestamp::from_utc_primitive(t.to_utc_primitive()), t);
    }
}
