//! A team: the tenant that owns boards, roadmaps and subscribers, and its settings.

use crate::{
    error::{DomainError, DomainResult},
    ids::TeamId,
    text,
    timestamp::Timestamp,
};

/// A tenant: owns boards, roadmaps, subscribers, users and keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// Every row of the team carries it.
    pub id: TeamId,
    /// 1–255 characters after trimming.
    pub name: String,
    /// A lowercase DNS label ([`parse_subdomain`]), unique among teams.
    pub subdomain: String,
    /// Lets a team API key create topics for anonymous visitors.
    pub allow_anonymous_feedback: bool,
    /// Holds new public feedback (and topics in moderated stages) until the team publishes it.
    pub public_board_moderation: bool,
    /// `portalSignInUrl`: where the public portal sends visitors to sign in on the team's own
    /// site ([`parse_sign_in_url`]); no sign-in link when `None`.
    pub portal_sign_in_url: Option<String>,
    /// When the team was created.
    pub created_at: Timestamp,
    /// The last change of its name or settings.
    pub updated_at: Timestamp,
}

impl Team {
    /// A new team with both settings off; refused when the name or subdomain is invalid.
    pub fn new(name: &str, subdomain: &str, now: Timestamp) -> DomainResult<Self> {
        Ok(Self {
            id: TeamId::new(),
            name: text::required("name", Some(name), text::NAME_MAX)?,
            subdomain: parse_subdomain(subdomain)?,
            allow_anonymous_feedback: false,
            public_board_moderation: false,
            portal_sign_in_url: None,
            created_at: now,
            updated_at: now,
        })
    }

    /// Applies the patch; `updatedAt` moves only when something changed.
    pub fn apply(&mut self, patch: TeamPatch, now: Timestamp) {
        let before = self.clone();
        if let Some(name) = patch.name {
            self.name = name;
        }
        if let Some(v) = patch.allow_anonymous_feedback {
            self.allow_anonymous_feedback = v;
        }
        if let Some(v) = patch.public_board_moderation {
            self.public_board_moderation = v;
        }
        if let Some(url) = patch.portal_sign_in_url {
            self.portal_sign_in_url = url;
        }
        if *self != before {
            self.updated_at = now;
        }
    }
}

/// The settings `teams.update` may change; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamPatch {
    /// A new name: trimmed, 1–255 characters.
    pub name: Option<String>,
    /// Turns anonymous topic creation on or off.
    pub allow_anonymous_feedback: Option<bool>,
    /// Turns moderation of new public feedback on or off.
    pub public_board_moderation: Option<bool>,
    /// A new sign-in link for the portal; `Some(None)` removes it.
    pub portal_sign_in_url: Option<Option<String>>,
}

impl TeamPatch {
    /// Validates `teams.update`: a name, when given, may not be blank; a sign-in URL, when
    /// given, is [`parse_sign_in_url`]'s (`null` or blank removes it).
    pub fn new(
        name: Option<&str>,
        allow_anonymous_feedback: Option<bool>,
        public_board_moderation: Option<bool>,
        portal_sign_in_url: Option<Option<&str>>,
    ) -> DomainResult<Self> {
        Ok(Self {
            name: text::required_if_given("name", name, text::NAME_MAX)?,
            allow_anonymous_feedback,
            public_board_moderation,
            portal_sign_in_url: portal_sign_in_url
                .map(|url| url.map(parse_sign_in_url).transpose())
                .transpose()?
                .map(Option::flatten),
        })
    }
}

/// The longest sign-in URL a team may set.
pub const SIGN_IN_URL_MAX: usize = 2048;

/// A portal sign-in link: an absolute `https` (or `http`) URL without credentials, at most
/// [`SIGN_IN_URL_MAX`] characters; blank means none. Anything else could turn the link into
/// script (`javascript:`) or send visitors somewhere unexpected.
///
/// ```
/// use sounding_domain::team::parse_sign_in_url;
///
/// assert_eq!(
///     parse_sign_in_url(" https://acme.example/login?next=feedback ").unwrap().as_deref(),
///     Some("https://acme.example/login?next=feedback")
/// );
/// assert_eq!(parse_sign_in_url("  ").unwrap(), None);
/// assert!(parse_sign_in_url("javascript:alert(1)").is_err());
/// assert!(parse_sign_in_url("/login").is_err());
/// assert!(parse_sign_in_url("https://acme.example/log in").is_err());
/// ```
pub fn parse_sign_in_url(raw: &str) -> DomainResult<Option<String>> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    let refused = || DomainError::invalid("portalSignInUrl must be an absolute http or https URL");
    let too_long = || {
        DomainError::invalid(format!(
            "portalSignInUrl must be at most {SIGN_IN_URL_MAX} characters"
        ))
    };
    if raw.chars().count() > SIGN_IN_URL_MAX {
        return Err(too_long());
    }
    // The parser would drop tabs and newlines and encode spaces: a link with any is refused.
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refused());
    }
    let url = url::Url::parse(raw).map_err(|_| refused())?;
    let fine = matches!(url.scheme(), "http" | "https")
        && url.host().is_some()
        && url.username().is_empty()
        && url.password().is_none();
    if !fine {
        return Err(refused());
    }
    // Normalizing percent-encodes: the stored form must fit too.
    let normalized = url.to_string();
    if normalized.len() > SIGN_IN_URL_MAX {
        return Err(too_long());
    }
    Ok(Some(normalized))
}

/// A DNS label: 1–63 of `[a-z0-9-]`, not starting or ending with `-`. Case is folded.
///
/// ```
/// use sounding_domain::team::parse_subdomain;
///
/// assert_eq!(parse_subdomain(" Acme-1 ").unwrap(), "acme-1");
/// assert!(parse_subdomain("-acme").is_err());
/// assert!(parse_subdomain("ac_me").is_err());
/// assert!(parse_subdomain(&"a".repeat(64)).is_err());
/// ```
pub fn parse_subdomain(raw: &str) -> DomainResult<String> {
    let value = raw.trim().to_ascii_lowercase();
    let ok = (1..=63).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if ok {
        Ok(value)
    } else {
        Err(DomainError::invalid(
            "subdomain must be 1-63 characters of a-z, 0-9 and '-', not starting or ending with '-'",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains_are_dns_labels() {
        assert_eq!(parse_subdomain(" Acme-1 ").unwrap(), "acme-1");
        for bad in ["", "-acme", "acme-", "ac me", "ac_me", &"a".repeat(64)] {
            assert!(parse_subdomain(bad).is_err(), "{bad:?} accepted");
        }
    }
}
