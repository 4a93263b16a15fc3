//! Feedback items: what subscribers and the team post on boards, with a status, a priority,
//! a short url id, and moderation and archive states.

use serde_json::Value;

use crate::{
    error::{DomainError, DomainResult},
    ids::{BoardId, FeedbackId, SubscriberId, TagId, TeamId},
    meta::{self, Meta},
    page::PageRequest,
    slug,
    subscriber::SubscriberRef,
    tag::TagRef,
    text,
    timestamp::Timestamp,
};

/// Custom feedback types are short labels (`bug`, `idea`).
pub const TYPE_MAX: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedbackStatus {
    InReview,
    InProgress,
    Planned,
    Completed,
    Closed,
}

impl FeedbackStatus {
    pub const ALL: [FeedbackStatus; 5] = [
        FeedbackStatus::InReview,
        FeedbackStatus::InProgress,
        FeedbackStatus::Planned,
        FeedbackStatus::Completed,
        FeedbackStatus::Closed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FeedbackStatus::InReview => "in_review",
            FeedbackStatus::InProgress => "in_progress",
            FeedbackStatus::Planned => "planned",
            FeedbackStatus::Completed => "completed",
            FeedbackStatus::Closed => "closed",
        }
    }

    pub fn parse(raw: &str) -> DomainResult<Self> {
        Self::ALL
            .into_iter()
            .find(|s| s.as_str() == raw)
            .ok_or_else(|| {
                DomainError::invalid(
                    "status must be one of in_review, in_progress, planned, completed, closed",
                )
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Priority {
    Low,
    Medium,
    High,
    Urgent,
}

impl Priority {
    pub const ALL: [Priority; 4] = [
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Urgent,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Urgent => "urgent",
        }
    }

    pub fn parse(raw: &str) -> DomainResult<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == raw)
            .ok_or_else(|| {
                DomainError::invalid("priority must be one of low, medium, high, urgent")
            })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Feedback {
    pub id: FeedbackId,
    pub team_id: TeamId,
    pub board_id: Option<BoardId>,
    /// Ten `[a-z0-9]` characters, unique per team; survives title changes.
    pub url_id: String,
    pub title: String,
    pub text: String,
    pub status: FeedbackStatus,
    pub priority: Priority,
    pub kind: Option<String>,
    pub creator_id: SubscriberId,
    pub meta: Meta,
    /// `None` while awaiting moderation.
    pub published_at: Option<Timestamp>,
    pub archived_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_modified_by_id: Option<SubscriberId>,
}

/// A moderation step on an item (`feedbacks.publish`, `.archive`, `.restore`). Each is
/// idempotent: a step already taken changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moderation {
    /// Approves an item awaiting moderation: it becomes public.
    Publish,
    /// Takes an item out of every list but the team's archive.
    Archive,
    /// Takes an item out of the archive.
    Restore,
}

impl Moderation {
    /// Takes the step on `item` at `now`; whether it changed anything.
    pub fn apply(self, item: &mut Feedback, now: Timestamp) -> bool {
        // Publishing and archiving keep the first moment they happened.
        let set_once = |field: &mut Option<Timestamp>| {
            let unset = field.is_none();
            if unset {
                *field = Some(now);
            }
            unset
        };
        match self {
            Moderation::Publish => set_once(&mut item.published_at),
            Moderation::Archive => set_once(&mut item.archived_at),
            Moderation::Restore => item.archived_at.take().is_some(),
        }
    }
}

impl Feedback {
    /// `/<title-slug>-<urlId>`, regenerated from the current title.
    pub fn url(&self) -> String {
        slug::url_path(&self.title, &self.url_id)
    }

    pub fn is_public(&self) -> bool {
        self.published_at.is_some() && self.archived_at.is_none()
    }

    /// A published item of a new team, on no board, for unit tests of the rules.
    #[cfg(test)]
    pub(crate) fn sample(now: Timestamp) -> Feedback {
        Feedback {
            id: FeedbackId::new(),
            team_id: TeamId::new(),
            board_id: None,
            url_id: "abcdefghij".into(),
            title: "Dark mode".into(),
            text: String::new(),
            status: FeedbackStatus::InReview,
            priority: Priority::Medium,
            kind: None,
            creator_id: SubscriberId::new(),
            meta: Meta::new(),
            published_at: Some(now),
            archived_at: None,
            created_at: now,
            updated_at: now,
            last_modified_by_id: None,
        }
    }
}

/// The board a feedback item is on, as shown with it (and whether the public may see it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardRef {
    pub id: BoardId,
    pub name: String,
    pub slug: String,
    pub is_public: bool,
}

/// A feedback item as read: with its board, its creator and last editor, and the live counts
/// the store keeps in step with the vote and comment rows.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackView {
    pub feedback: Feedback,
    pub board: Option<BoardRef>,
    /// `None` only if the creator's row is gone.
    pub creator: Option<SubscriberRef>,
    pub last_modified_by: Option<SubscriberRef>,
    pub vote_count: i64,
    pub comment_count: i64,
    /// Its tags, in `tag::sort_tags` order.
    pub tags: Vec<TagRef>,
}

impl FeedbackView {
    /// Whether public reads may show it: published, and on a public board or on none.
    /// Archived items stay readable by id; lists leave them out.
    pub fn is_publicly_readable(&self) -> bool {
        self.reach().is_publicly_readable()
    }

    /// Who may read it, without the rest.
    pub fn reach(&self) -> FeedbackReach {
        FeedbackReach {
            published: self.feedback.published_at.is_some(),
            board_is_public: self.board.as_ref().map(|b| b.is_public),
        }
    }
}

/// What decides who may read an item, for the checks that need nothing else of it (a vote, a
/// follow): cheaper to fetch than its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedbackReach {
    pub published: bool,
    /// `None` when it is on no board.
    pub board_is_public: Option<bool>,
}

impl FeedbackReach {
    /// Published, and on a public board or on none: anyone may read it.
    pub fn is_publicly_readable(&self) -> bool {
        PUBLICLY_READABLE.iter().all(|c| c.holds(self, false))
    }

    /// Readable by anyone and not archived: public lists show it (`archived`: whether it is).
    pub fn is_listed_publicly(&self, archived: bool) -> bool {
        LISTED_PUBLICLY.iter().all(|c| c.holds(self, archived))
    }

    /// Published on a private board: the team's members may read it, nobody else.
    pub fn is_for_members(&self) -> bool {
        self.published && self.board_is_public == Some(false)
    }
}

/// One condition of the public rules on a feedback item, on its stored fields. The rules are
/// data so that a store that must say them in its own query language (store-diesel turns each
/// into SQL in one place, `repos/feedback/list.rs`) says exactly these, and one that filters
/// in memory tests exactly these (`FeedbackReach::is_listed_publicly`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicCondition {
    /// `published_at` is set (not awaiting moderation).
    Published,
    /// `archived_at` is not set.
    NotArchived,
    /// On no board, or on a board that is public.
    OnPublicBoardOrNone,
}

impl PublicCondition {
    /// Whether the item whose reach is `reach` (and archived or not) meets the condition.
    pub fn holds(self, reach: &FeedbackReach, archived: bool) -> bool {
        match self {
            PublicCondition::Published => reach.published,
            PublicCondition::NotArchived => !archived,
            PublicCondition::OnPublicBoardOrNone => reach.board_is_public.unwrap_or(true),
        }
    }
}

/// Anyone may read the item by id (archived items stay readable).
pub const PUBLICLY_READABLE: [PublicCondition; 2] = [
    PublicCondition::Published,
    PublicCondition::OnPublicBoardOrNone,
];

/// "Listed publicly": public lists (`FeedbackScope::Public`) show the item, and a public
/// board's count counts it. The PostgreSQL and SQLite triggers that keep
/// `feedback_public_counts` (migrations/2026-11-27-000001_public_counts) restate this rule
/// in SQL, as triggers cannot call Rust: change them with it. A divergence fails store-diesel's
/// `a_public_boards_total_follows_every_change_to_its_items` (tests/feedback.rs), which
/// compares the kept count with the list's own count after each kind of change.
pub const LISTED_PUBLICLY: [PublicCondition; 3] = [
    PublicCondition::Published,
    PublicCondition::NotArchived,
    PublicCondition::OnPublicBoardOrNone,
];

/// How a feedback list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FeedbackSort {
    /// Newest first.
    #[default]
    Newest,
    /// Most votes first, then newest.
    Top,
    /// Most votes and comments in the trending window first, then newest.
    Trending,
}

impl FeedbackSort {
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "newest" => Ok(Self::Newest),
            "top" => Ok(Self::Top),
            "trending" => Ok(Self::Trending),
            _ => Err(DomainError::invalid(
                "sortBy must be one of newest, top, trending",
            )),
        }
    }
}

/// How far back `trending` counts votes and comments.
pub const TRENDING_WINDOW_SECONDS: i64 = 7 * 24 * 60 * 60;

/// Which feedback a list may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedbackScope {
    /// Listed publicly (`LISTED_PUBLICLY`): published, not archived, on a public board or on
    /// none.
    Public,
    /// Everything of the team; archived items too when `include_archived`.
    Team { include_archived: bool },
}

/// A validated `feedbacks.list`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeedbackQuery {
    pub scope: FeedbackScope,
    pub sort: FeedbackSort,
    /// Any of these statuses; all when empty.
    pub statuses: Vec<FeedbackStatus>,
    pub board_id: Option<BoardId>,
    /// Only items carrying this tag.
    pub tag_id: Option<TagId>,
    /// Lowercase; matched as a substring of the lowercased title and text.
    pub search: Option<String>,
    /// Start of the trending window (`now` minus [`TRENDING_WINDOW_SECONDS`]).
    pub trending_since: Timestamp,
    /// Only items created in this range.
    pub created: CreatedRange,
    pub page: PageRequest,
}

/// A `createdAt` range, both ends included (`from`/`to` of the lists).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CreatedRange {
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
}

impl CreatedRange {
    /// Parses RFC 3339 timestamps, or dates (`2026-11-26`: `from` at the day's start, `to`
    /// at its end). An end before its start is refused rather than answered empty.
    pub fn parse(from: Option<&str>, to: Option<&str>) -> DomainResult<Self> {
        let range = Self {
            from: from.map(|raw| range_end("from", raw, false)).transpose()?,
            to: to.map(|raw| range_end("to", raw, true)).transpose()?,
        };
        if let (Some(from), Some(to)) = (range.from, range.to) {
            if to < from {
                return Err(DomainError::invalid("to must not be before from"));
            }
        }
        Ok(range)
    }

    pub fn contains(&self, at: Timestamp) -> bool {
        self.from.is_none_or(|from| at >= from) && self.to.is_none_or(|to| at <= to)
    }
}

/// One end of a range: a timestamp, or a date taken as its first or last millisecond.
fn range_end(field: &str, raw: &str, end_of_day: bool) -> DomainResult<Timestamp> {
    let parsed = match Timestamp::parse_rfc3339(raw) {
        Some(at) => Some(at),
        None => {
            Timestamp::parse_date(raw).map(|day| if end_of_day { day.end_of_day() } else { day })
        }
    };
    parsed.ok_or_else(|| {
        DomainError::invalid(format!(
            "{field} must be an RFC 3339 timestamp or a date (YYYY-MM-DD)"
        ))
    })
}

/// The text `search` is matched against: title and text, lowercased (Unicode-aware, so both
/// engines fold the same way).
pub fn search_text(title: &str, text: &str) -> String {
    format!("{}\n{}", title.to_lowercase(), text.to_lowercase())
}

/// A search term as matched: trimmed and lowercased; `None` when empty.
pub fn search_term(raw: Option<&str>) -> DomainResult<Option<String>> {
    Ok(text::optional("search", raw, text::TITLE_MAX)?
        .filter(|s| !s.is_empty())
        .map(|s| s.to_lowercase()))
}

/// Validated content of a feedback creation (team or public).
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackDraft {
    pub title: String,
    pub text: String,
    pub kind: Option<String>,
    pub meta: Meta,
}

impl FeedbackDraft {
    pub fn new(
        title: Option<&str>,
        text: Option<&str>,
        kind: Option<&str>,
        meta: Option<&Value>,
    ) -> DomainResult<Self> {
        Ok(Self {
            title: text::required("title", title, text::TITLE_MAX)?,
            text: text::optional("text", text, text::TEXT_MAX)?.unwrap_or_default(),
            kind: parse_kind(kind)?,
            meta: meta::validate_optional("meta", meta)?.unwrap_or_default(),
        })
    }
}

/// Validated changes of a feedback update; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedbackPatch {
    pub title: Option<String>,
    pub text: Option<String>,
    pub kind: Option<String>,
    /// Merged into the existing meta.
    pub meta: Option<Meta>,
    pub status: Option<FeedbackStatus>,
    pub priority: Option<Priority>,
}

impl FeedbackPatch {
    pub fn content(
        title: Option<&str>,
        text: Option<&str>,
        kind: Option<&str>,
        meta: Option<&Value>,
    ) -> DomainResult<Self> {
        Ok(Self {
            title: text::required_if_given("title", title, text::TITLE_MAX)?,
            text: text::optional("text", text, text::TEXT_MAX)?,
            kind: parse_kind(kind)?,
            meta: meta::validate_optional("meta", meta)?,
            status: None,
            priority: None,
        })
    }

    /// Applies the patch; returns the previous status when it really changed. `updatedAt`
    /// moves only when something changed. Refused when the merged meta would be too large
    /// (the item is then to be dropped unsaved).
    pub fn apply(
        self,
        feedback: &mut Feedback,
        now: Timestamp,
    ) -> DomainResult<Option<FeedbackStatus>> {
        let before = feedback.clone();
        if let Some(title) = self.title {
            feedback.title = title;
        }
        if let Some(text) = self.text {
            feedback.text = text;
        }
        if let Some(kind) = self.kind {
            feedback.kind = Some(kind);
        }
        if let Some(patch) = self.meta {
            meta::merge_bounded("meta", &mut feedback.meta, &patch)?;
        }
        if let Some(priority) = self.priority {
            feedback.priority = priority;
        }
        let previous = match self.status {
            Some(status) if status != feedback.status => {
                Some(std::mem::replace(&mut feedback.status, status))
            }
            _ => None,
        };
        if *feedback != before {
            feedback.updated_at = now;
        }
        Ok(previous)
    }
}

fn parse_kind(raw: Option<&str>) -> DomainResult<Option<String>> {
    Ok(text::optional("type", raw, TYPE_MAX)?.filter(|k| !k.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_and_priorities_parse_and_name_the_allowed_values() {
        for s in FeedbackStatus::ALL {
            assert_eq!(FeedbackStatus::parse(s.as_str()).unwrap(), s);
        }
        let err = FeedbackStatus::parse("done").unwrap_err().to_string();
        assert!(err.contains("in_review") && err.contains("closed"));
        assert_eq!(Priority::parse("urgent").unwrap(), Priority::Urgent);
        assert!(Priority::parse("critical").is_err());
    }

    #[test]
    fn drafts_need_a_title() {
        assert_eq!(
            FeedbackDraft::new(Some("  "), None, None, None),
            Err(DomainError::invalid("title is required"))
        );
        let d = FeedbackDraft::new(
            Some(" Export "),
            Some("csv"),
            Some("idea"),
            Some(&json!({"a": 1})),
        )
        .unwrap();
        assert_eq!(
            (d.title.as_str(), d.text.as_str(), d.kind.as_deref()),
            ("Export", "csv", Some("idea"))
        );
    }

    #[test]
    fn moderation_steps_keep_the_first_moment_and_say_whether_they_changed_anything() {
        let (t1, t2) = (
            Timestamp::from_unix_seconds(1).unwrap(),
            Timestamp::from_unix_seconds(2).unwrap(),
        );
        let mut f = Feedback::sample(t1);
        f.published_at = None;
        assert!(Moderation::Publish.apply(&mut f, t1));
        assert!(!Moderation::Publish.apply(&mut f, t2));
        assert_eq!(f.published_at, Some(t1));
        assert!(Moderation::Archive.apply(&mut f, t1));
        assert!(!Moderation::Archive.apply(&mut f, t2));
        assert_eq!(f.archived_at, Some(t1));
        assert!(Moderation::Restore.apply(&mut f, t2));
        assert!(!Moderation::Restore.apply(&mut f, t2));
        assert_eq!(f.archived_at, None);
    }

    #[test]
    fn the_url_follows_the_title_and_keeps_the_url_id() {
        let now = Timestamp::from_unix_seconds(1).unwrap();
        let mut f = Feedback::sample(now);
        assert_eq!(f.url(), "/dark-mode-abcdefghij");
        let patch = FeedbackPatch::content(Some("Darker mode"), None, None, None).unwrap();
        assert_eq!(patch.apply(&mut f, now.plus_seconds(1)), Ok(None));
        assert_eq!(f.url(), "/darker-mode-abcdefghij");
        assert_eq!(f.updated_at, now.plus_seconds(1));
    }

    #[test]
    fn a_status_change_is_reported_only_when_it_changes() {
        let now = Timestamp::from_unix_seconds(1).unwrap();
        let mut f = Feedback::sample(now);
        let same = FeedbackPatch {
            status: Some(FeedbackStatus::InReview),
            ..Default::default()
        };
        assert_eq!(same.apply(&mut f, now), Ok(None));
        let moved = FeedbackPatch {
            status: Some(FeedbackStatus::Planned),
            ..Default::default()
        };
        assert_eq!(moved.apply(&mut f, now), Ok(Some(FeedbackStatus::InReview)));
        assert_eq!(f.status, FeedbackStatus::Planned);
    }
}

#[cfg(test)]
mod created_range_tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_bound_the_range_inclusively() {
        let range = CreatedRange::parse(Some("2026-11-01"), Some("2026-11-02")).unwrap();
        let at = |raw| Timestamp::parse_rfc3339(raw).unwrap();
        assert!(!range.contains(at("2026-10-31T23:59:59.999Z")));
        assert!(range.contains(at("2026-11-01T00:00:00.000Z")));
        assert!(range.contains(at("2026-11-02T23:59:59.999Z")));
        assert!(!range.contains(at("2026-11-03T00:00:00.000Z")));
        let exact = CreatedRange::parse(Some("2026-11-01T10:00:00+02:00"), None).unwrap();
        assert_eq!(exact.from, Some(at("2026-11-01T08:00:00Z")));
        assert!(exact.contains(at("2030-01-01T00:00:00Z")));
    }

    #[test]
    fn bad_ends_are_refused_by_name() {
        assert_eq!(
            CreatedRange::parse(Some("yesterday"), None)
                .unwrap_err()
                .to_string(),
            "from must be an RFC 3339 timestamp or a date (YYYY-MM-DD)"
        );
        assert_eq!(
            CreatedRange::parse(None, Some("2026-13-01"))
                .unwrap_err()
                .to_string(),
            "to must be an RFC 3339 timestamp or a date (YYYY-MM-DD)"
        );
        assert_eq!(
            CreatedRange::parse(Some("2026-11-02"), Some("2026-11-01"))
                .unwrap_err()
                .to_string(),
            "to must not be before from"
        );
        assert!(CreatedRange::parse(Some("9999-12-31"), Some("9999-12-31")).is_ok());
    }
}
