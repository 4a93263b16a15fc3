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

/// Where the team stands on a feedback item (`status`). Public submissions start
/// `InReview`; only the team changes it, and each real change emits `feedback_status_change`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedbackStatus {
    /// `in_review`: not decided on yet; the default of a new item.
    InReview,
    /// `in_progress`: being worked on.
    InProgress,
    /// `planned`: accepted, to be worked on later.
    Planned,
    /// `completed`: done.
    Completed,
    /// `closed`: settled without being completed; no work is to follow.
    Closed,
}

impl FeedbackStatus {
    /// Every status, in the order the API names them.
    pub const ALL: [FeedbackStatus; 5] = [
        FeedbackStatus::InReview,
        FeedbackStatus::InProgress,
        FeedbackStatus::Planned,
        FeedbackStatus::Completed,
        FeedbackStatus::Closed,
    ];

    /// The name on the wire and in storage (`in_review`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FeedbackStatus::InReview => "in_review",
            FeedbackStatus::InProgress => "in_progress",
            FeedbackStatus::Planned => "planned",
            FeedbackStatus::Completed => "completed",
            FeedbackStatus::Closed => "closed",
        }
    }

    /// Reads a wire name, exactly (case-sensitive); anything else is refused with a message
    /// naming the five.
    ///
    /// ```
    /// use sounding_domain::feedback::FeedbackStatus;
    ///
    /// assert_eq!(FeedbackStatus::parse("in_progress").unwrap(), FeedbackStatus::InProgress);
    /// assert_eq!(FeedbackStatus::InProgress.as_str(), "in_progress");
    /// assert!(FeedbackStatus::parse("In_Progress").is_err());
    /// assert_eq!(
    ///     FeedbackStatus::parse("done").unwrap_err().to_string(),
    ///     "status must be one of in_review, in_progress, planned, completed, closed"
    /// );
    /// ```
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

/// How urgent the team deems a feedback item (`priority`); `Medium` unless the team sets
/// another. Only the team changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Priority {
    /// `low`: can wait.
    Low,
    /// `medium`: the default of a new item.
    Medium,
    /// `high`: to be handled before most.
    High,
    /// `urgent`: to be handled first.
    Urgent,
}

impl Priority {
    /// Every priority, from least to most urgent.
    pub const ALL: [Priority; 4] = [
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Urgent,
    ];

    /// The name on the wire and in storage (`low`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Urgent => "urgent",
        }
    }

    /// Reads a wire name, exactly (case-sensitive); anything else is refused with a message
    /// naming the four.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == raw)
            .ok_or_else(|| {
                DomainError::invalid("priority must be one of low, medium, high, urgent")
            })
    }
}

/// A feedback item as stored: a request or report posted by a subscriber or by the team,
/// on one of the team's boards or on none.
#[derive(Debug, Clone, PartialEq)]
pub struct Feedback {
    /// Time-ordered UUID made at creation.
    pub id: FeedbackId,
    /// The owning team; every operation on the item is scoped to it.
    pub team_id: TeamId,
    /// The board it is on; `None` when on no board. An update may move it to another board
    /// but cannot take it off one.
    pub board_id: Option<BoardId>,
    /// Ten `[a-z0-9]` characters, unique per team; survives title changes.
    pub url_id: String,
    /// Its heading: 1–255 characters after trimming; the url's slug is made from it.
    pub title: String,
    /// Plain-text body of up to 50,000 characters; empty when not given.
    pub text: String,
    /// Where the team stands on it.
    pub status: FeedbackStatus,
    /// How urgent the team deems it.
    pub priority: Priority,
    /// Custom type label (`type` on the wire, such as `bug` or `idea`), up to [`TYPE_MAX`]
    /// characters; `None` when none was given.
    pub kind: Option<String>,
    /// The subscriber who posted it (for the team's own items, the one named by `creatorEmail`
    /// or standing for the key's user); only they may update or delete it through the public API.
    pub creator_id: SubscriberId,
    /// Custom JSON object of at most 16 KiB; updates merge into it key by key, and a `null`
    /// value removes its key.
    pub meta: Meta,
    /// `None` while awaiting moderation.
    pub published_at: Option<Timestamp>,
    /// When it was archived (by [`Moderation::Archive`] or a merge); `None` when not archived.
    /// Archived items leave every list but stay readable by id.
    pub archived_at: Option<Timestamp>,
    /// When it was created; what the `newest` order and the `from`/`to` range go by.
    pub created_at: Timestamp,
    /// Moves only when a change really alters the item (update, moderation step, merge).
    pub updated_at: Timestamp,
    /// The subscriber whose update or merge last changed it; `None` until one did.
    /// Moderation steps leave it as it is.
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
    /// The board's id.
    pub id: BoardId,
    /// The board's display name.
    pub name: String,
    /// The board's url slug, unique within the team.
    pub slug: String,
    /// Whether outsiders may see the board, and so the item (see [`FeedbackReach`]).
    pub is_public: bool,
}

/// A feedback item as read: with its board, its creator and last editor, and the live counts
/// the store keeps in step with the vote and comment rows.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackView {
    /// The item as stored.
    pub feedback: Feedback,
    /// The board it is on; `None` when on no board.
    pub board: Option<BoardRef>,
    /// `None` only if the creator's row is gone.
    pub creator: Option<SubscriberRef>,
    /// Whoever `last_modified_by_id` names; `None` when nobody changed it yet, or if their
    /// row is gone.
    pub last_modified_by: Option<SubscriberRef>,
    /// `feedbackVotesCount`: its votes, one per subscriber.
    pub vote_count: i64,
    /// `feedbackCommentsCount`: its comments, private ones included.
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
///
/// ```
/// use sounding_domain::feedback::FeedbackReach;
///
/// let on_no_board = FeedbackReach { published: true, board_is_public: None };
/// let on_private_board = FeedbackReach { published: true, board_is_public: Some(false) };
/// let awaiting_moderation = FeedbackReach { published: false, board_is_public: Some(true) };
/// assert!(on_no_board.is_publicly_readable());
/// assert!(!on_private_board.is_publicly_readable() && on_private_board.is_for_members());
/// assert!(!awaiting_moderation.is_publicly_readable() && !awaiting_moderation.is_for_members());
/// // Archived items stay readable by id, but public lists leave them out.
/// assert!(on_no_board.is_listed_publicly(false));
/// assert!(!on_no_board.is_listed_publicly(true));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedbackReach {
    /// `published_at` is set: the item is not awaiting moderation.
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
    /// Reads `sortBy`: `newest`, `top` or `trending`, exactly; anything else is refused.
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

    /// Whether a list in this order changes with the clock as well as with the data:
    /// `trending` counts only the last `TRENDING_WINDOW_SECONDS`, so its answer moves while
    /// nothing is written, and no answer of it may be remembered.
    pub fn moves_with_clock(self) -> bool {
        self == Self::Trending
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
    Team {
        /// Archived items are listed too, with the rest (`archived: true`); otherwise they are
        /// left out.
        include_archived: bool,
    },
}

/// A validated `feedbacks.list`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeedbackQuery {
    /// Which items it may show: the public's or the team's.
    pub scope: FeedbackScope,
    /// How the items are ordered (`sortBy`).
    pub sort: FeedbackSort,
    /// Any of these statuses; all when empty.
    pub statuses: Vec<FeedbackStatus>,
    /// Only items on this board; a board that is not the team's gives an empty list.
    pub board_id: Option<BoardId>,
    /// Only items carrying this tag.
    pub tag_id: Option<TagId>,
    /// Lowercase; matched as a substring of the lowercased title and text.
    pub search: Option<String>,
    /// Start of the trending window (`now` minus [`TRENDING_WINDOW_SECONDS`]).
    pub trending_since: Timestamp,
    /// Only items created in this range.
    pub created: CreatedRange,
    /// Which page: `limit` (20 unless given, at most 100) and `offset`.
    pub page: PageRequest,
}

/// A `createdAt` range, both ends included (`from`/`to` of the lists).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CreatedRange {
    /// The earliest `createdAt` included; `None` for no lower bound.
    pub from: Option<Timestamp>,
    /// The latest `createdAt` included (a date stands for its last millisecond); `None` for
    /// no upper bound.
    pub to: Option<Timestamp>,
}

impl CreatedRange {
    /// Neither end given: every item, whenever it was created.
    pub fn is_unbounded(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

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

    /// Whether `at` falls in the range, both ends included.
    ///
    /// ```
    /// use sounding_domain::{feedback::CreatedRange, timestamp::Timestamp};
    ///
    /// let range = CreatedRange::parse(Some("2026-11-01"), Some("2026-11-02")).unwrap();
    /// let at = |raw| Timestamp::parse_rfc3339(raw).unwrap();
    /// assert!(range.contains(at("2026-11-01T00:00:00Z")));
    /// assert!(range.contains(at("2026-11-02T23:59:59.999Z")));
    /// assert!(!range.contains(at("2026-11-03T00:00:00Z")));
    /// assert_eq!(
    ///     CreatedRange::parse(Some("2026-11-02"), Some("2026-11-01"))
    ///         .unwrap_err()
    ///         .to_string(),
    ///     "to must not be before from"
    /// );
    /// ```
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
    /// Trimmed, 1–255 characters.
    pub title: String,
    /// Trimmed, up to 50,000 characters; empty when not given.
    pub text: String,
    /// The `type` label, trimmed, up to [`TYPE_MAX`] characters; `None` when absent or blank.
    pub kind: Option<String>,
    /// A JSON object of at most 16 KiB and 8 levels; empty when absent or `null`.
    pub meta: Meta,
}

impl FeedbackDraft {
    /// Validates a creation's `title`, `text`, `type` (as `kind`) and `meta`. Refused, naming
    /// the field, when the title is missing or blank, a text is too long, or `meta` is not an
    /// object within its limits.
    ///
    /// ```
    /// use sounding_domain::{feedback::FeedbackDraft, DomainError};
    ///
    /// let draft = FeedbackDraft::new(Some("  Dark mode "), None, Some(" "), None).unwrap();
    /// assert_eq!(draft.title, "Dark mode");
    /// assert_eq!((draft.text.as_str(), draft.kind), ("", None));
    /// assert_eq!(
    ///     FeedbackDraft::new(Some("   "), Some("Please"), None, None),
    ///     Err(DomainError::invalid("title is required"))
    /// );
    /// ```
    pub fn new(
        title: Option<&str>,
        text: Option<&str>,
        kind: Option<&str>,
        meta: Option<&Value>,
    ) -> DomainResult<Self> {
        // The title first, so a missing one is the error named even when the rest is bad too.
        let title = text::required("title", title, text::TITLE_MAX)?;
        let rest = FeedbackPatch::content(None, text, kind, meta)?;
        Ok(Self {
            title,
            text: rest.text.unwrap_or_default(),
            kind: rest.kind,
            meta: rest.meta.unwrap_or_default(),
        })
    }
}

/// Validated changes of a feedback update; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedbackPatch {
    /// New heading, 1–255 characters after trimming; a blank one is refused, not ignored.
    pub title: Option<String>,
    /// New body, up to 50,000 characters after trimming; may be empty.
    pub text: Option<String>,
    /// New `type` label; a blank one is taken as absent, so the stored type stays.
    pub kind: Option<String>,
    /// Merged into the existing meta.
    pub meta: Option<Meta>,
    /// New status (team only); a real change is reported by [`FeedbackPatch::apply`].
    pub status: Option<FeedbackStatus>,
    /// New priority (team only).
    pub priority: Option<Priority>,
}

impl FeedbackPatch {
    /// The content part of an update (`title`, `text`, `type`, `meta`), as the team and the
    /// creator may both send it; status and priority stay `None` for the team's caller to set.
    /// Refused as [`FeedbackDraft::new`] refuses, except that nothing is required.
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
    ///
    /// ```
    /// # use sounding_domain::{feedback::*, meta::Meta, timestamp::Timestamp};
    /// # use sounding_domain::{FeedbackId, SubscriberId, TeamId};
    /// # let created = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
    /// # let mut item = Feedback {
    /// #     id: FeedbackId::new(),
    /// #     team_id: TeamId::new(),
    /// #     board_id: None,
    /// #     url_id: "k3j9x0a2mq".into(),
    /// #     title: "Dark mode".into(),
    /// #     text: String::new(),
    /// #     status: FeedbackStatus::InReview,
    /// #     priority: Priority::Medium,
    /// #     kind: None,
    /// #     creator_id: SubscriberId::new(),
    /// #     meta: Meta::new(),
    /// #     published_at: Some(created),
    /// #     archived_at: None,
    /// #     created_at: created,
    /// #     updated_at: created,
    /// #     last_modified_by_id: None,
    /// # };
    /// let now = created.plus_seconds(60);
    /// let planned = FeedbackPatch { status: Some(FeedbackStatus::Planned), ..Default::default() };
    /// assert_eq!(planned.clone().apply(&mut item, now), Ok(Some(FeedbackStatus::InReview)));
    /// assert_eq!((item.status, item.updated_at), (FeedbackStatus::Planned, now));
    /// // The same status again is no change: nothing to report, and `updatedAt` stays.
    /// assert_eq!(planned.apply(&mut item, now.plus_seconds(60)), Ok(None));
    /// assert_eq!(item.updated_at, now);
    /// ```
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
