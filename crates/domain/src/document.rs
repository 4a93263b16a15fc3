//! Documents: the team's help articles and announcements, with a short url id (decisions §1),
//! a publish state, and emoji reactions from subscribers (one per emoji per subscriber).

use std::collections::BTreeMap;

use crate::{
    error::{DomainError, DomainResult},
    feedback_comment::Direction,
    ids::{DocumentId, SubscriberId, TeamId},
    page::PageRequest,
    slug, text,
    timestamp::Timestamp,
};

/// The longest emoji (in characters) a reaction may carry: room for ZWJ sequences and flags.
pub const EMOJI_MAX: usize = 32;

/// A help article or announcement; publicly listed only while published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Names the document in `documents.*` and in reactions.
    pub id: DocumentId,
    /// The team that owns it.
    pub team_id: TeamId,
    /// Ten `[a-z0-9]` characters, unique per team among documents; survives title changes.
    pub url_id: String,
    /// 1–255 characters after trimming; the url's slug follows it.
    pub title: String,
    /// The body: plain text, at most 50,000 characters, possibly empty.
    pub text: String,
    /// `None` while a draft; the first publish time while published.
    pub published_at: Option<Timestamp>,
    /// When the document was created.
    pub created_at: Timestamp,
    /// The last `documents.update`, or change of publish state.
    pub updated_at: Timestamp,
}

impl Document {
    /// `/<title-slug>-<urlId>`, regenerated from the current title.
    pub fn url(&self) -> String {
        slug::url_path(&self.title, &self.url_id)
    }
}

/// Reaction counts by emoji (only emoji with at least one reaction).
pub type ReactionCounts = BTreeMap<String, i64>;

/// A document as read: with its reaction counts and, when read for a subscriber, that
/// subscriber's own reactions (empty otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentView {
    /// The document as stored.
    pub document: Document,
    /// Every subscriber's reactions, counted by emoji.
    pub reactions: ReactionCounts,
    /// The viewer's emoji, sorted; empty when there is no viewer.
    pub my_reactions: Vec<String>,
}

/// A document's reactions after a reaction was added or removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactionState {
    /// Every subscriber's reactions to the document, counted by emoji.
    pub reactions: ReactionCounts,
    /// The reacting subscriber's emoji, sorted.
    pub mine: Vec<String>,
}

/// A validated `documents.create`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentDraft {
    /// Trimmed, 1–255 characters.
    pub title: String,
    /// Trimmed, at most 50,000 characters; empty when not given.
    pub text: String,
    /// Published on creation; a draft otherwise (the default).
    pub publish: bool,
}

impl DocumentDraft {
    /// Validates `documents.create`: `title` required, `text` optional, a draft unless
    /// `publish` is true.
    ///
    /// ```
    /// use sounding_domain::document::DocumentDraft;
    /// use sounding_domain::{DomainError, TeamId, Timestamp};
    ///
    /// assert_eq!(
    ///     DocumentDraft::new(Some("  "), Some("body"), None),
    ///     Err(DomainError::invalid("title is required"))
    /// );
    /// let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
    /// let draft = DocumentDraft::new(Some(" Getting started "), None, None).unwrap();
    /// let doc = draft.into_document(TeamId::new(), "abcdefghij".into(), now);
    /// assert_eq!(doc.published_at, None, "a draft by default");
    /// assert_eq!(doc.url(), "/getting-started-abcdefghij");
    /// ```
    pub fn new(
        title: Option<&str>,
        text: Option<&str>,
        publish: Option<bool>,
    ) -> DomainResult<Self> {
        Ok(Self {
            title: text::required("title", title, text::TITLE_MAX)?,
            text: text::optional("text", text, text::TEXT_MAX)?.unwrap_or_default(),
            publish: publish.unwrap_or(false),
        })
    }

    /// The new document; its `url_id` is drawn by the use case.
    pub fn into_document(self, team_id: TeamId, url_id: String, now: Timestamp) -> Document {
        Document {
            id: DocumentId::new(),
            team_id,
            url_id,
            title: self.title,
            text: self.text,
            published_at: self.publish.then_some(now),
            created_at: now,
            updated_at: now,
        }
    }
}

/// A validated `documents.update`; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentPatch {
    /// A new title: trimmed, 1–255 characters.
    pub title: Option<String>,
    /// A new text: trimmed, at most 50,000 characters, possibly empty.
    pub text: Option<String>,
}

impl DocumentPatch {
    /// Validates `documents.update`: a title, when given, may not be blank.
    pub fn new(title: Option<&str>, text: Option<&str>) -> DomainResult<Self> {
        Ok(Self {
            title: text::required_if_given("title", title, text::TITLE_MAX)?,
            text: text::optional("text", text, text::TEXT_MAX)?,
        })
    }

    /// Applies the given fields; `updated_at` becomes `now` even when nothing changed.
    pub fn apply(self, document: &mut Document, now: Timestamp) {
        if let Some(title) = self.title {
            document.title = title;
        }
        if let Some(text) = self.text {
            document.text = text;
        }
        document.updated_at = now;
    }
}

/// How a document list is ordered; ties are broken by id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocumentSort {
    /// Unpublished documents (team lists only) count as older than any published one.
    #[default]
    PublishedAt,
    /// By creation time.
    CreatedAt,
    /// By the last update or publish-state change.
    UpdatedAt,
    /// Case-insensitive (lowercased), then bytewise.
    Title,
}

impl DocumentSort {
    /// Reads `publishedAt`, `createdAt`, `updatedAt` or `title`; anything else is invalid.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "publishedAt" => Ok(Self::PublishedAt),
            "createdAt" => Ok(Self::CreatedAt),
            "updatedAt" => Ok(Self::UpdatedAt),
            "title" => Ok(Self::Title),
            _ => Err(DomainError::invalid(
                "sort must be one of publishedAt, createdAt, updatedAt, title",
            )),
        }
    }
}

/// A validated document list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentQuery {
    /// Only published (`Some(true)`) or only unpublished (`Some(false)`) documents; all when
    /// `None`.
    pub published: Option<bool>,
    /// Lowercase; matched as a substring of the lowercased title or text.
    pub search: Option<String>,
    /// The order; ties are broken by id in the same direction.
    pub sort: DocumentSort,
    /// Whether `sort` runs ascending or descending.
    pub direction: Direction,
    /// Whose reactions fill `my_reactions`.
    pub viewer: Option<SubscriberId>,
    /// The slice of the ordered documents to return.
    pub page: PageRequest,
}

/// The text `search` is matched against: title and text, lowercased.
pub fn search_text(title: &str, text: &str) -> String {
    crate::feedback::search_text(title, text)
}

/// The sort key of a title: lowercased in Rust, so both engines order titles the same way.
pub fn title_key(title: &str) -> String {
    title.to_lowercase()
}

/// A reaction's emoji: required, 1..=32 characters, none of them whitespace or control
/// characters. Taken as sent (not trimmed): surrounding spaces are refused, not dropped.
pub fn parse_emoji(raw: Option<&str>) -> DomainResult<String> {
    let value = raw.unwrap_or_default();
    if value.is_empty() {
        return Err(DomainError::invalid("emoji is required"));
    }
    if value.chars().count() > EMOJI_MAX {
        return Err(DomainError::invalid(format!(
            "emoji must be at most {EMOJI_MAX} characters"
        )));
    }
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(DomainError::invalid(
            "emoji must not contain whitespace or control characters",
        ));
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000).unwrap()
    }

    #[test]
    fn drafts_need_a_title_and_bound_their_text() {
        assert_eq!(
            DocumentDraft::new(Some(" "), None, None),
            Err(DomainError::invalid("title is required"))
        );
        let long = "x".repeat(text::TEXT_MAX + 1);
        assert_eq!(
            DocumentDraft::new(Some("T"), Some(&long), None),
            Err(DomainError::invalid(
                "text must be at most 50000 characters"
            ))
        );
        let draft = DocumentDraft::new(Some(" Welcome "), None, None).unwrap();
        assert_eq!((draft.title.as_str(), draft.text.as_str()), ("Welcome", ""));
        let doc = draft.into_document(TeamId::new(), "abcdefghij".into(), now());
        assert_eq!(doc.published_at, None);
        let doc = DocumentDraft::new(Some("W"), None, Some(true))
            .unwrap()
            .into_document(TeamId::new(), "abcdefghij".into(), now());
        assert_eq!(doc.published_at, Some(now()));
    }

    #[test]
    fn the_url_follows_the_title_and_keeps_the_url_id() {
        let mut doc = DocumentDraft::new(Some("Getting started"), None, None)
            .unwrap()
            .into_document(TeamId::new(), "abcdefghij".into(), now());
        assert_eq!(doc.url(), "/getting-started-abcdefghij");
        DocumentPatch::new(Some("Install guide"), None)
            .unwrap()
            .apply(&mut doc, now());
        assert_eq!(doc.url(), "/install-guide-abcdefghij");
        assert!(DocumentPatch::new(Some(""), None).is_err());
    }

    #[test]
    fn emoji_are_short_and_without_whitespace() {
        assert_eq!(parse_emoji(Some("👍")).unwrap(), "👍");
        assert_eq!(parse_emoji(Some("👨‍👩‍👧")).unwrap(), "👨‍👩‍👧");
        assert_eq!(
            parse_emoji(None),
            Err(DomainError::invalid("emoji is required"))
        );
        assert_eq!(
            parse_emoji(Some("")),
            Err(DomainError::invalid("emoji is required"))
        );
        assert!(parse_emoji(Some(" 👍")).is_err());
        assert!(parse_emoji(Some("a\u{0}")).is_err());
        assert!(parse_emoji(Some(&"x".repeat(33))).is_err());
        assert!(parse_emoji(Some(&"x".repeat(32))).is_ok());
    }

    #[test]
    fn sorts_parse_and_name_the_allowed_values() {
        assert_eq!(DocumentSort::parse("title").unwrap(), DocumentSort::Title);
        assert_eq!(
            DocumentSort::parse("votes"),
            Err(DomainError::invalid(
                "sort must be one of publishedAt, createdAt, updatedAt, title"
            ))
        );
    }
}
