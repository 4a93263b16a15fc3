//! Subscribers: the team's end users who submit, comment and vote. Identified by e-mail,
//! matched case-insensitively and stored in lowercase.

use serde_json::Value;

use crate::{
    error::{DomainError, DomainResult},
    ids::{SubscriberId, TeamId},
    meta::{self, Meta},
    text,
    timestamp::Timestamp,
};

/// A normalised e-mail address: trimmed, lowercase, `local@domain`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    /// Trims and lowercases `raw`, which must be `local@domain` without blanks or control
    /// characters, at most 254 characters (counted before trimming too). Refused with `email is
    /// required`, `email must be at most 254 characters` or `email must be a valid e-mail address`.
    ///
    /// ```
    /// use sounding_domain::subscriber::Email;
    ///
    /// let email = Email::parse("  Jane.Doe@Example.COM ").unwrap();
    /// assert_eq!(email.as_str(), "jane.doe@example.com");
    /// assert_eq!(email.derived_name(), "Jane Doe");
    /// assert_eq!(
    ///     Email::parse("jane@").unwrap_err().to_string(),
    ///     "email must be a valid e-mail address"
    /// );
    /// ```
    pub fn parse(raw: &str) -> DomainResult<Self> {
        let value = raw.trim().to_lowercase();
        if value.is_empty() {
            return Err(DomainError::invalid("email is required"));
        }
        // Counted as sent, too: the documented limit is on the field, surrounding blanks
        // included, so a client validating against the schema never meets a surprise.
        if raw.chars().count() > text::EMAIL_MAX || value.chars().count() > text::EMAIL_MAX {
            return Err(DomainError::invalid(format!(
                "email must be at most {} characters",
                text::EMAIL_MAX
            )));
        }
        let valid = match value.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.is_empty()
                    && !domain.contains('@')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !value.chars().any(|c| c.is_whitespace() || c.is_control())
            }
            None => false,
        };
        if valid {
            Ok(Self(value))
        } else {
            Err(DomainError::invalid("email must be a valid e-mail address"))
        }
    }

    /// The normalised address.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The normalised address, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The local part turned into a name: `jane.doe@x.io` → `Jane Doe`.
    pub fn derived_name(&self) -> String {
        let local = self.0.split('@').next().unwrap_or_default();
        let words: Vec<String> = local
            .split(['.', '_', '-', '+'])
            .filter(|w| !w.is_empty())
            .map(capitalise)
            .collect();
        if words.is_empty() {
            self.0.clone()
        } else {
            words.join(" ")
        }
    }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How a subscriber first came in (`source`); later identifies leave it as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriberSource {
    /// `widget`: through the widget a team embeds (identify with `source: widget`, or an
    /// anonymous topic creator).
    Widget,
    /// `api`: by the team's own system through the API; the default of identify.
    Api,
}

impl SubscriberSource {
    /// The name on the wire and in storage (`widget`, `api`).
    pub fn as_str(self) -> &'static str {
        match self {
            SubscriberSource::Widget => "widget",
            SubscriberSource::Api => "api",
        }
    }

    /// Reads `widget` or `api`, exactly; anything else is refused.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "widget" => Ok(Self::Widget),
            "api" => Ok(Self::Api),
            _ => Err(DomainError::invalid("source must be one of widget, api")),
        }
    }
}

/// The meta keys also kept as typed values (decisions §2) so they can be filtered and sorted.
/// Values of the wrong type stay in `meta` and leave the typed value empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes {
    /// `meta.mmr` as a finite number, read from a number or a numeric string.
    pub mmr: Option<f64>,
    /// `meta.plan`, when it is a string.
    pub plan: Option<String>,
    /// `meta.role`, when it is a string.
    pub role: Option<String>,
    /// `meta.team`, when it is a string: a label from the team's own system, not a Sounding
    /// team.
    pub team: Option<String>,
    /// `meta.created_at`, read from an RFC 3339 string or Unix seconds; not the subscriber's
    /// own `created_at`.
    pub created_at: Option<Timestamp>,
}

impl Attributes {
    /// Reads the typed values from `meta`; a key that is missing or of the wrong type leaves
    /// its value `None`, never an error.
    pub fn extract(meta: &Meta) -> Self {
        let string = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            mmr: meta.get("mmr").and_then(|v| match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
                _ => None,
            }),
            plan: string("plan"),
            role: string("role"),
            team: string("team"),
            created_at: meta.get("created_at").and_then(|v| match v {
                Value::String(s) => Timestamp::parse_rfc3339(s),
                Value::Number(n) => n.as_i64().and_then(Timestamp::from_unix_seconds),
                _ => None,
            }),
        }
    }
}

/// One of the team's end users, who submit, comment and vote; found by e-mail within the
/// team.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscriber {
    /// Time-ordered UUID; what creator-only checks compare.
    pub id: SubscriberId,
    /// The team whose user it is; a subscriber acts within it only.
    pub team_id: TeamId,
    /// Display name, up to 255 characters: as given, else derived from the e-mail
    /// ([`Email::derived_name`]), or made up for an anonymous topic creator who gave none.
    pub name: String,
    /// Absent only for an anonymous topic creator who gave none.
    pub email: Option<Email>,
    /// How the subscriber first came in.
    pub source: SubscriberSource,
    /// Custom attributes from the team's system, at most 16 KiB; identify merges into it key
    /// by key, and a `null` value removes its key.
    pub meta: Meta,
    /// The typed values of `meta`'s `mmr`, `plan`, `role`, `team` and `created_at`, kept in
    /// step with it so they can be filtered and sorted.
    pub attributes: Attributes,
    /// An http(s) URL of at most 2,048 characters; `None` until one is given.
    pub avatar_url: Option<String>,
    /// Tokens carrying an older version are refused (logout, deletion).
    pub token_version: i64,
    /// When the subscriber was created.
    pub created_at: Timestamp,
    /// `lastUpdated`: when the name, meta or avatar last really changed; an identify that
    /// changes nothing leaves it.
    pub last_updated: Timestamp,
}

/// A subscriber as shown beside what they wrote or did: only what a reader sees, so a page of
/// comments or items loads four columns per person rather than their whole record.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberRef {
    /// The subscriber's id.
    pub id: SubscriberId,
    /// Their display name.
    pub name: String,
    /// Their e-mail; `None` for an anonymous topic creator who gave none.
    pub email: Option<Email>,
    /// Their avatar URL, when they have one.
    pub avatar_url: Option<String>,
}

impl From<&Subscriber> for SubscriberRef {
    fn from(s: &Subscriber) -> Self {
        Self {
            id: s.id,
            name: s.name.clone(),
            email: s.email.clone(),
            avatar_url: s.avatar_url.clone(),
        }
    }
}

/// A validated `subscriber.identify` request.
#[derive(Debug, Clone, PartialEq)]
pub struct Identify {
    /// Who is identified: matched with the team's subscribers by this normalised address.
    pub email: Email,
    /// Trimmed, up to 255 characters; `None` when absent or blank, which keeps a stored name
    /// (or derives one from the e-mail for a new subscriber).
    pub name: Option<String>,
    /// Merged into the stored meta key by key; `None` when absent or `null`.
    pub meta: Option<Meta>,
    /// An http(s) URL of at most 2,048 characters; `None` when absent or blank, which keeps a
    /// stored one.
    pub avatar_url: Option<String>,
    /// `api` unless the request says `widget`; only a newly created subscriber takes it.
    pub source: SubscriberSource,
}

impl Identify {
    /// Validates a `subscriber.identify`. Refused when the e-mail is missing or invalid (see
    /// [`Email::parse`]), the name is too long, `meta` is not an object within its limits,
    /// `avatarUrl` is not an http(s) URL, or `source` is neither `widget` nor `api`.
    pub fn new(
        email: Option<&str>,
        name: Option<&str>,
        meta: Option<&Value>,
        avatar_url: Option<&str>,
        source: Option<&str>,
    ) -> DomainResult<Self> {
        let email = Email::parse(email.unwrap_or_default())?;
        let name = text::optional("name", name, text::NAME_MAX)?.filter(|n| !n.is_empty());
        let meta = meta::validate_optional("meta", meta)?;
        let avatar_url = avatar_url
            .filter(|u| !u.trim().is_empty())
            .map(|u| text::http_url("avatarUrl", u))
            .transpose()?;
        let source = source
            .map(SubscriberSource::parse)
            .transpose()?
            .unwrap_or(SubscriberSource::Api);
        Ok(Self {
            email,
            name,
            meta,
            avatar_url,
            source,
        })
    }
}

/// The subscriber a team operation acts for (`feedback-comments.create`,
/// `feedbacks.vote|unvote`, `topics.vote|unvote`): one of the team's by id, one found (or
/// created, source `api`) by e-mail as `identify` does, or, when neither is named, the one
/// standing for the key's user.
#[derive(Debug, Clone, PartialEq)]
pub enum OnBehalfOf {
    /// `subscriberId`: one of the team's subscribers, who must exist.
    Id(SubscriberId),
    /// `email` (with `name` for a new one): found, or created with source `api`, as identify
    /// does.
    Email(Identify),
    /// Neither given: the subscriber standing for the key's user.
    KeyUser,
}

impl OnBehalfOf {
    /// `subscriberId` or `email` (with `name` for a subscriber created for it), not both.
    ///
    /// ```
    /// use sounding_domain::subscriber::OnBehalfOf;
    ///
    /// assert_eq!(OnBehalfOf::parse(None, None, None).unwrap(), OnBehalfOf::KeyUser);
    /// let OnBehalfOf::Email(identify) = OnBehalfOf::parse(None, Some(" Ann@X.io "), Some("Ann"))
    ///     .unwrap()
    /// else {
    ///     panic!("an e-mail identifies the voter");
    /// };
    /// assert_eq!(identify.email.as_str(), "ann@x.io");
    /// let id = "0190c8a0-0000-7000-8000-000000000000";
    /// let both = OnBehalfOf::parse(Some(id), Some("a@x.io"), None);
    /// assert_eq!(both.unwrap_err().to_string(), "give subscriberId or email, not both");
    /// ```
    pub fn parse(
        subscriber_id: Option<&str>,
        email: Option<&str>,
        name: Option<&str>,
    ) -> DomainResult<Self> {
        // Checked whoever the voter is, so a bad name is never passed over in silence.
        text::optional("name", name, text::NAME_MAX)?;
        match (subscriber_id, email) {
            (Some(_), Some(_)) => Err(DomainError::invalid("give subscriberId or email, not both")),
            (Some(raw), None) => Ok(Self::Id(SubscriberId::parse("subscriberId", raw)?)),
            (None, Some(email)) => Ok(Self::Email(Identify::new(
                Some(email),
                name,
                None,
                None,
                Some("api"),
            )?)),
            (None, None) => Ok(Self::KeyUser),
        }
    }
}

impl Subscriber {
    /// A subscriber created by `identify`.
    pub fn identified(team_id: TeamId, input: &Identify, now: Timestamp) -> Self {
        let meta = input.meta.clone().unwrap_or_default();
        Self {
            id: SubscriberId::new(),
            team_id,
            name: input
                .name
                .clone()
                .unwrap_or_else(|| input.email.derived_name()),
            email: Some(input.email.clone()),
            source: input.source,
            attributes: Attributes::extract(&meta),
            meta,
            avatar_url: input.avatar_url.clone(),
            token_version: 0,
            created_at: now,
            last_updated: now,
        }
    }

    /// `identify` of an existing subscriber: meta merged, given fields replaced. Returns
    /// whether anything changed; only then does `last_updated` move (docs/decisions.md): an
    /// identify of the same person with the same data, the common case, changes nothing and
    /// so needs no write.
    ///
    /// Refused, with the subscriber unchanged, when the merged meta would pass 16 KiB.
    pub fn merge_identify(&mut self, input: &Identify, now: Timestamp) -> DomainResult<bool> {
        let mut changed = false;
        if let Some(patch) = &input.meta {
            let before = self.meta.clone();
            meta::merge_bounded("meta", &mut self.meta, patch)?;
            if self.meta != before {
                self.attributes = Attributes::extract(&self.meta);
                changed = true;
            }
        }
        if let Some(name) = input.name.as_ref().filter(|name| **name != self.name) {
            self.name = name.clone();
            changed = true;
        }
        if let Some(url) = &input.avatar_url {
            if self.avatar_url.as_ref() != Some(url) {
                self.avatar_url = Some(url.clone());
                changed = true;
            }
        }
        if changed {
            self.last_updated = now;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn emails_are_trimmed_and_lowercased() {
        assert_eq!(
            Email::parse("  Jane.Doe@Example.COM ").unwrap().as_str(),
            "jane.doe@example.com"
        );
        for bad in [
            "",
            "   ",
            "jane",
            "@x.io",
            "jane@",
            "a@b@c",
            "ja ne@x.io",
            "jane@.io",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert!(Email::parse(&format!("{}@x.io", "a".repeat(250))).is_err());
    }

    #[test]
    fn an_email_over_the_limit_as_sent_is_refused_even_if_blanks_make_it_so() {
        let local = "a".repeat(240);
        let fits = format!("{local}@example.com");
        assert_eq!(fits.len(), 252);
        assert!(Email::parse(&fits).is_ok());
        assert!(Email::parse(&format!(" {fits} ")).is_ok());
        let padded = format!("   {fits}");
        assert_eq!(padded.len(), 255);
        assert_eq!(
            Email::parse(&padded).unwrap_err().to_string(),
            "email must be at most 254 characters"
        );
    }

    #[test]
    fn on_behalf_of_takes_an_id_or_an_email_never_both() {
        let id = SubscriberId::new();
        assert_eq!(
            OnBehalfOf::parse(Some(&id.to_string()), None, Some("ignored")).unwrap(),
            OnBehalfOf::Id(id)
        );
        let OnBehalfOf::Email(identify) =
            OnBehalfOf::parse(None, Some(" Ann@X.io "), Some("Ann")).unwrap()
        else {
            panic!("an e-mail identifies");
        };
        assert_eq!(identify.email.as_str(), "ann@x.io");
        assert_eq!(identify.name.as_deref(), Some("Ann"));
        assert_eq!(identify.source, SubscriberSource::Api);
        assert_eq!(
            OnBehalfOf::parse(None, None, None).unwrap(),
            OnBehalfOf::KeyUser
        );
        let refused = |id: Option<&str>, email: Option<&str>| {
            OnBehalfOf::parse(id, email, None).unwrap_err().to_string()
        };
        assert_eq!(
            refused(Some(&id.to_string()), Some("a@x.io")),
            "give subscriberId or email, not both"
        );
        assert_eq!(refused(Some("nope"), None), "subscriberId must be a UUID");
        assert_eq!(
            refused(None, Some("nope")),
            "email must be a valid e-mail address"
        );
    }

    #[test]
    fn names_come_from_the_local_part() {
        let name = |e: &str| Email::parse(e).unwrap().derived_name();
        assert_eq!(name("jane.doe@x.io"), "Jane Doe");
        assert_eq!(name("bob_the-builder+tag@x.io"), "Bob The Builder Tag");
        assert_eq!(name("..@x.io"), "..@x.io");
    }

    #[test]
    fn attributes_are_extracted_with_their_types() {
        let meta = meta::validate(
            "meta",
            &json!({"mmr": 120.5, "plan": "pro", "role": "cto", "team": "core",
                    "created_at": "2025-01-02T03:04:05Z", "other": 1}),
        )
        .unwrap();
        let a = Attributes::extract(&meta);
        assert_eq!(a.mmr, Some(120.5));
        assert_eq!(a.plan.as_deref(), Some("pro"));
        assert_eq!(
            a.created_at.unwrap().to_rfc3339(),
            "2025-01-02T03:04:05.000Z"
        );
        let wrong = meta::validate("meta", &json!({"mmr": "lots", "plan": 3})).unwrap();
        assert_eq!(Attributes::extract(&wrong), Attributes::default());
    }

    #[test]
    fn identify_merges_meta_and_keeps_unmentioned_fields() {
        let now = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        let first = Identify::new(
            Some("A@x.io"),
            None,
            Some(&json!({"plan": "free", "a": 1})),
            None,
            None,
        )
        .unwrap();
        let mut s = Subscriber::identified(TeamId::new(), &first, now);
        assert_eq!(s.name, "A");
        let second = Identify::new(
            Some("a@x.io"),
            Some("Ann"),
            Some(&json!({"plan": "pro"})),
            None,
            None,
        )
        .unwrap();
        assert!(s.merge_identify(&second, now.plus_seconds(5)).unwrap());
        assert_eq!(
            Value::Object(s.meta.clone()),
            json!({"plan": "pro", "a": 1})
        );
        assert_eq!(s.attributes.plan.as_deref(), Some("pro"));
        assert_eq!(s.name, "Ann");
        assert_eq!(s.last_updated, now.plus_seconds(5));

        // The same again changes nothing, not even `last_updated`.
        let before = s.clone();
        assert!(!s.merge_identify(&second, now.plus_seconds(9)).unwrap());
        assert_eq!(s, before);
        // Any one field that differs is a change.
        for changed in [
            Identify::new(Some("a@x.io"), Some("Anna"), None, None, None),
            Identify::new(Some("a@x.io"), None, Some(&json!({"a": 2})), None, None),
            Identify::new(Some("a@x.io"), None, None, Some("https://x.io/a.png"), None),
        ] {
            let mut s = before.clone();
            assert!(s
                .merge_identify(&changed.unwrap(), now.plus_seconds(9))
                .unwrap());
            assert_eq!(s.last_updated, now.plus_seconds(9));
        }
    }

    proptest! {
        #[test]
        fn email_normalisation_is_idempotent(local in "[A-Za-z0-9._+-]{1,30}", domain in "[A-Za-z0-9-]{1,20}\\.[a-z]{2,5}") {
            let once = Email::parse(&format!(" {local}@{domain} ")).unwrap();
            let twice = Email::parse(once.as_str()).unwrap();
            prop_assert_eq!(&once, &twice);
            prop_assert_eq!(once.as_str(), once.as_str().to_lowercase());
        }

        #[test]
        fn derived_names_are_never_empty(local in "[a-z0-9._+-]{1,30}") {
            let email = Email::parse(&format!("{local}@x.io")).unwrap();
            prop_assert!(!email.derived_name().trim().is_empty());
        }
    }
}
