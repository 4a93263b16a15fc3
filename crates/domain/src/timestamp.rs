//! Instants in UTC with millisecond precision: the precision the API prints and every
//! store keeps, so a value read back equals the value written.

use std::fmt;

use time::{format_description::well_known::Rfc3339, OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// An instant in UTC, to the millisecond; printed as `2026-11-22T10:04:05.123Z`.
///
/// ```
/// use sounding_domain::Timestamp;
///
/// // Any offset is normalised to UTC, and precision is cut to milliseconds.
/// let t = Timestamp::parse_rfc3339("2026-11-22T11:04:05.123456+01:00").unwrap();
/// assert_eq!(t.to_rfc3339(), "2026-11-22T10:04:05.123Z");
/// assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()), Some(t));
/// assert_eq!(t.to_string(), t.to_rfc3339());
/// let day = Timestamp::parse_date("2026-11-22").unwrap();
/// assert_eq!(day.end_of_day().to_rfc3339(), "2026-11-22T23:59:59.999Z");
/// assert!(Timestamp::parse_rfc3339("22/11/2026").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: Timestamp = Timestamp(OffsetDateTime::UNIX_EPOCH);

    /// `at` in UTC, below the millisecond cut off.
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

    /// Parses a calendar date (`2026-11-26`) as its first millisecond, UTC.
    pub fn parse_date(raw: &str) -> Option<Self> {
        let format = time::macros::format_description!("[year]-[month]-[day]");
        time::Date::parse(raw, &format)
            .ok()
            .map(|day| Self(day.midnight().assume_utc()))
    }

    /// The last millisecond of this instant's UTC day.
    pub fn end_of_day(self) -> Self {
        let last = time::Time::from_hms_milli(23, 59, 59, 999).expect("valid time");
        Self(self.0.replace_time(last))
    }

    /// Seconds since the Unix epoch; `None` outside the years the time library represents.
    pub fn from_unix_seconds(secs: i64) -> Option<Self> {
        OffsetDateTime::from_unix_timestamp(secs)
            .ok()
            .map(Self::from_offset)
    }

    /// Reads a date-time without offset (as SQL stores it) as UTC.
    pub fn from_utc_primitive(at: PrimitiveDateTime) -> Self {
        Self::from_offset(at.assume_utc())
    }

    /// The UTC date-time without its offset, as SQL stores it.
    pub fn to_utc_primitive(self) -> PrimitiveDateTime {
        PrimitiveDateTime::new(self.0.date(), self.0.time())
    }

    /// Whole seconds since the Unix epoch, milliseconds dropped.
    pub fn unix_seconds(self) -> i64 {
        self.0.unix_timestamp()
    }

    /// The instant as the `time` crate's type, in UTC.
    pub fn as_offset(self) -> OffsetDateTime {
        self.0
    }

    /// `self` moved by `secs` seconds (back when negative); at the ends of the representable
    /// range it stays there rather than panicking.
    pub fn plus_seconds(self, secs: i64) -> Self {
        Self::from_offset(self.0.saturating_add(time::Duration::seconds(secs)))
    }

    /// How long after `earlier` this is; zero when it is not after it.
    pub fn since(self, earlier: Timestamp) -> std::time::Duration {
        std::time::Duration::try_from(self.0 - earlier.0).unwrap_or_default()
    }

    /// `self` moved on by `pause`, kept to whole milliseconds.
    pub fn plus(self, pause: std::time::Duration) -> Self {
        let millis = i64::try_from(pause.as_millis()).unwrap_or(i64::MAX);
        Self::from_offset(self.0.saturating_add(time::Duration::milliseconds(millis)))
    }

    /// `2026-11-22T10:04:05.123Z`.
    pub fn to_rfc3339(self) -> String {
        self.with_rfc3339(str::to_owned)
    }

    /// Hands `f` the RFC 3339 form, written into a buffer on the stack: every item of a
    /// list prints two or three of these, and `format!` cost 15 % of a busy topic's thread
    /// page (docs/benchmarks.md).
    fn with_rfc3339<R>(self, f: impl FnOnce(&str) -> R) -> R {
        let d = self.0;
        let Ok(year @ 0..=9999) = u32::try_from(d.year()) else {
            // Outside four digits (only from arithmetic on extreme values), the slow way.
            return f(&formatted(d));
        };
        let mut text = *b"0000-00-00T00:00:00.000Z";
        let fields = [
            (0, 4, year),
            (5, 2, u32::from(u8::from(d.month()))),
            (8, 2, u32::from(d.day())),
            (11, 2, u32::from(d.hour())),
            (14, 2, u32::from(d.minute())),
            (17, 2, u32::from(d.second())),
            (20, 3, u32::from(d.millisecond())),
        ];
        for (at, width, mut value) in fields {
            for digit in text[at..at + width].iter_mut().rev() {
                // `value % 10` is below 10.
                *digit = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        // Only ASCII digits were written over an ASCII template.
        f(std::str::from_utf8(&text).unwrap_or_default())
    }
}

/// The RFC 3339 form through `format!`: the fallback of `with_rfc3339`, and what its tests
/// compare it with.
fn formatted(d: OffsetDateTime) -> String {
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

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_rfc3339(|text| f.write_str(text))
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.with_rfc3339(|text| s.serialize_str(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn since_is_the_time_between_and_never_negative() {
        let earlier = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        let later = earlier.plus(std::time::Duration::from_millis(2_500));
        assert_eq!(
            later.since(earlier),
            std::time::Duration::from_millis(2_500)
        );
        assert_eq!(earlier.since(later), std::time::Duration::ZERO);
    }

    #[test]
    fn moving_past_the_representable_range_stays_at_its_end() {
        let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        assert_eq!(
            now.plus_seconds(-60)
                .since(now.plus_seconds(-120))
                .as_secs(),
            60
        );
        let far = now.plus_seconds(i64::MAX / 2);
        assert_eq!(
            far,
            now.plus_seconds(i64::MAX / 4).plus_seconds(i64::MAX / 2)
        );
        let early = now.plus_seconds(-(i64::MAX / 2));
        assert!(early < now);
    }

    #[test]
    fn prints_utc_with_milliseconds_and_z() {
        let t = Timestamp::from_offset(datetime!(2026-11-22 11:04:05.123456 +01:00));
        assert_eq!(t.to_rfc3339(), "2026-11-22T10:04:05.123Z");
    }

    #[test]
    fn prints_every_field_zero_padded_as_format_would() {
        let reference = |t: Timestamp| formatted(t.as_offset());
        // From year 0 to 9999 in uneven steps, so every digit position takes many values.
        let first = Timestamp::from_offset(datetime!(0000-01-01 00:00:00 UTC)).unix_seconds();
        let last = Timestamp::from_offset(datetime!(9999-12-31 23:59:59.999 UTC));
        let mut at = first;
        while at < last.unix_seconds() {
            let t =
                Timestamp::from_unix_seconds(at)
                    .unwrap()
                    .plus(std::time::Duration::from_millis(
                        u64::try_from(at.rem_euclid(1000)).unwrap(),
                    ));
            assert_eq!(t.to_rfc3339(), reference(t));
            assert_eq!(t.to_string(), reference(t));
            at += 86_400 * 97 + 3_733;
        }
        assert_eq!(last.to_rfc3339(), "9999-12-31T23:59:59.999Z");
        assert_eq!(
            serde_json::to_string(&last).unwrap(),
            "\"9999-12-31T23:59:59.999Z\""
        );
        let before_year_zero = Timestamp::from_unix_seconds(first - 1).unwrap();
        assert_eq!(before_year_zero.to_rfc3339(), reference(before_year_zero));
    }

    #[test]
    fn round_trips_through_a_primitive_datetime() {
        let t = Timestamp::from_offset(datetime!(2026-01-02 03:04:05.678 UTC));
        assert_eq!(Timestamp::from_utc_primitive(t.to_utc_primitive()), t);
    }
}
