//! Length rules for the text fields a client sends (decisions §2). Lengths are counted in
//! characters after trimming.

use crate::error::{DomainError, DomainResult};

/// The longest title: of a feedback item, topic or document.
pub const TITLE_MAX: usize = 255;
/// The longest body: a text or description (feedback, topics, boards, roadmaps, documents).
pub const TEXT_MAX: usize = 50_000;
/// The longest comment, on feedback or on a topic.
pub const COMMENT_MAX: usize = 10_000;
/// The longest name: of a team, user, subscriber, board, roadmap, stage or API key.
pub const NAME_MAX: usize = 255;
/// The longest e-mail address, counted as sent and once trimmed.
pub const EMAIL_MAX: usize = 254;
/// The longest board slug; a given one is counted as sent, surrounding blanks included.
pub const SLUG_MAX: usize = 100;
/// The longest URL a client may give: an avatar, a webhook target.
pub const URL_MAX: usize = 2_048;

/// A required text field: trimmed, non-empty, at most `max` characters.
///
/// ```
/// use sounding_domain::text::{optional, required};
/// use sounding_domain::DomainError;
///
/// assert_eq!(required("title", Some("  Dark mode "), 255).unwrap(), "Dark mode");
/// assert_eq!(
///     required("title", Some("   "), 255),
///     Err(DomainError::invalid("title is required"))
/// );
/// // Lengths count characters, not bytes.
/// assert!(required("name", Some("ééééé"), 5).is_ok());
/// assert_eq!(
///     required("name", Some("éééééé"), 5),
///     Err(DomainError::invalid("name must be at most 5 characters"))
/// );
/// assert_eq!(optional("text", None, 5), Ok(None));
/// ```
pub fn required(field: &str, raw: Option<&str>, max: usize) -> DomainResult<String> {
    let value = raw.map(str::trim).unwrap_or_default();
    if value.is_empty() {
        return Err(DomainError::invalid(format!("{field} is required")));
    }
    bounded(field, value, max)
}

/// `raw` read by `parse` when given; absent stays absent.
pub fn parse_given<R: ?Sized, T>(
    raw: Option<&R>,
    parse: impl FnOnce(&R) -> DomainResult<T>,
) -> DomainResult<Option<T>> {
    raw.map(parse).transpose()
}

/// A field an update may change but not blank: absent stays absent; given, it is `required`.
pub fn required_if_given(
    field: &str,
    raw: Option<&str>,
    max: usize,
) -> DomainResult<Option<String>> {
    raw.map(|value| required(field, Some(value), max))
        .transpose()
}

/// An optional text field: trimmed and at most `max` characters; absent stays absent.
pub fn optional(field: &str, raw: Option<&str>, max: usize) -> DomainResult<Option<String>> {
    raw.map(|value| bounded(field, value.trim(), max))
        .transpose()
}

fn bounded(field: &str, value: &str, max: usize) -> DomainResult<String> {
    if value.chars().count() > max {
        return Err(DomainError::invalid(format!(
            "{field} must be at most {max} characters"
        )));
    }
    Ok(value.to_owned())
}

/// `#RRGGBB`.
pub fn color(field: &str, raw: &str) -> DomainResult<String> {
    let ok =
        raw.len() == 7 && raw.starts_with('#') && raw[1..].chars().all(|c| c.is_ascii_hexdigit());
    if ok {
        Ok(raw.to_ascii_uppercase())
    } else {
        Err(DomainError::invalid(format!(
            "{field} must be a hex color like #3B82F6"
        )))
    }
}

/// An http(s) URL of bounded length, such as an avatar.
pub fn http_url(field: &str, raw: &str) -> DomainResult<String> {
    let value = raw.trim();
    let lower = value.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://"))
        || value.contains(char::is_whitespace)
    {
        return Err(DomainError::invalid(format!(
            "{field} must be an http or https URL"
        )));
    }
    bounded(field, value, URL_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_rejects_blank_and_trims() {
        assert_eq!(
            required("title", Some("  "), 5),
            Err(DomainError::invalid("title is required"))
        );
        assert_eq!(
            required("title", None, 5),
            Err(DomainError::invalid("title is required"))
        );
        assert_eq!(required("title", Some(" ab "), 5).unwrap(), "ab");
    }

    #[test]
    fn length_is_counted_in_characters() {
        assert!(required("name", Some("ééééé"), 5).is_ok());
        assert_eq!(
            required("name", Some("éééééé"), 5),
            Err(DomainError::invalid("name must be at most 5 characters"))
        );
    }

    #[test]
    fn colors_are_hex_triplets() {
        assert_eq!(color("color", "#a0b1c2").unwrap(), "#A0B1C2");
        assert!(color("color", "red").is_err());
        assert!(color("color", "#12345").is_err());
        assert!(color("color", "#12345g").is_err());
    }
}
