//! Topics: feature requests on a roadmap stage, with a short url id, a visit counter, and
//! the moderation state of decisions §3.

use serde_json::{Map, Value};

use crate::{
    error::DomainResult,
    feedback_comment::Direction,
    ids::{RoadmapId, StageId, SubscriberId, TeamId, TopicId},
    meta::{self, Meta},
    page::PageRequest,
    slug, text,
    timestamp::Timestamp,
};

/// The only meta keys a topic keeps (decisions §2); others are dropped silently.
pub const META_KEYS: [&str; 6] = [
    "ctaTitle",
    "ctaLink",
    "ctaImage",
    "description",
    "feedback",
    "projectId",
];

/// How long one viewer's visits count once (interface §8).
pub const VISIT_WINDOW_SECONDS: i64 = 120;

/// Validated topic meta with only the whitelisted keys.
pub fn topic_meta(raw: Option<&Value>) -> DomainResult<Option<Meta>> {
    Ok(meta::validate_optional("meta", raw)?.map(|m| {
        m.into_iter()
            .filter(|(k, _)| META_KEYS.contains(&k.as_str()))
            .collect::<Map<String, Value>>()
    }))
}

/// A topic as stored: a feature request on a stage of one of the team's roadmaps; its
/// stage stands for its status.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// Time-ordered UUID made at creation.
    pub id: TopicId,
    /// The owning team; every operation on the topic is scoped to it.
    pub team_id: TeamId,
    /// The roadmap its stage belongs to.
    pub roadmap_id: RoadmapId,
    /// The stage it is on; a private stage hides it from outsiders.
    pub stage_id: StageId,
    /// Ten `[a-z0-9]` characters, unique per team; survives title changes.
    pub url_id: String,
    /// Its heading: 1–255 characters after trimming; the url's slug is made from it.
    pub title: String,
    /// Short summary of up to 50,000 characters; the title when none was given at creation.
    pub description: String,
    /// Full details, up to 50,000 characters; empty when not given.
    pub text: String,
    /// The creator.
    pub subscriber_id: SubscriberId,
    /// Only the [`META_KEYS`], at most 16 KiB; other keys are dropped on the way in.
    pub meta: Meta,
    /// Counted by the store (`record_topic_visit`); writes of the topic leave it alone.
    pub visits: i64,
    /// `None` while awaiting moderation.
    pub published_at: Option<Timestamp>,
    /// When it was created; the default order of topic lists.
    pub created_at: Timestamp,
    /// Moves only when a change really alters the topic.
    pub updated_at: Timestamp,
}

impl Topic {
    /// `/<title-slug>-<urlId>`, regenerated from the current title.
    pub fn url(&self) -> String {
        slug::url_path(&self.title, &self.url_id)
    }
}

/// The stage a topic is on, as shown with it (and whether it is private).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageRef {
    /// The stage's id.
    pub id: StageId,
    /// The stage's name: the topic's status as shown.
    pub name: String,
    /// The stage's position in its roadmap, 1..n.
    pub order: i64,
    /// Whether the stage, and so the topic, is hidden from outsiders.
    pub is_private: bool,
}

/// A topic as read: with its stage and the live counts.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicView {
    /// The topic as stored.
    pub topic: Topic,
    /// The stage it is on.
    pub stage: StageRef,
    /// `voteCount`: its votes, one per subscriber.
    pub vote_count: i64,
    /// `commentCount`: its comments, leaving out tombstones (deleted comments kept for their
    /// replies).
    pub comment_count: i64,
}

impl TopicView {
    /// Whether public reads may show it to someone who is not a team member.
    pub fn is_public(&self) -> bool {
        is_public(&self.topic, self.stage.is_private)
    }
}

/// One condition of a topic's visibility to outsiders, on its stored fields (and its stage's):
/// the rule as data, so store-diesel's SQL (`repos/topics/threads.rs`) says exactly these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicCondition {
    /// `published_at` is set.
    Published,
    /// Its stage is not private.
    OnPublicStage,
}

impl TopicCondition {
    /// Whether `topic`, on a stage private or not, meets the condition.
    pub fn holds(self, topic: &Topic, stage_is_private: bool) -> bool {
        match self {
            TopicCondition::Published => topic.published_at.is_some(),
            TopicCondition::OnPublicStage => !stage_is_private,
        }
    }
}

/// What makes a topic public: public reads show it, and its comments, to outsiders.
pub const PUBLIC_TOPIC: [TopicCondition; 2] =
    [TopicCondition::Published, TopicCondition::OnPublicStage];

/// What makes a topic visible to a team member through the public operations: published, on
/// any stage.
pub const MEMBER_VISIBLE_TOPIC: [TopicCondition; 1] = [TopicCondition::Published];

/// Whether `topic`, on a stage private or not, is public (`PUBLIC_TOPIC`).
pub fn is_public(topic: &Topic, stage_is_private: bool) -> bool {
    crate::topic_comment::ThreadScope::Public.includes(topic, stage_is_private)
}

/// Validated content of `topics.create`.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicDraft {
    /// Trimmed, 1–255 characters (checked beforehand by [`topic_title`]).
    pub title: String,
    /// Trimmed, up to 50,000 characters; the title when absent or blank.
    pub description: String,
    /// Trimmed, up to 50,000 characters; empty when absent.
    pub text: String,
    /// The whitelisted keys of the given meta ([`topic_meta`]); empty when absent.
    pub meta: Meta,
}

impl TopicDraft {
    /// `title` is checked by the caller (its refusal has a fixed body); the description
    /// defaults to the title.
    pub fn new(
        title: String,
        description: Option<&str>,
        text: Option<&str>,
        meta: Option<&Value>,
    ) -> DomainResult<Self> {
        let description = text::optional("description", description, text::TEXT_MAX)?
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| title.clone());
        Ok(Self {
            description,
            text: text::optional("text", text, text::TEXT_MAX)?.unwrap_or_default(),
            meta: topic_meta(meta)?.unwrap_or_default(),
            title,
        })
    }
}

/// A topic title: `None` when missing or blank (refused with `title is required`).
pub fn topic_title(raw: Option<&str>) -> DomainResult<Option<String>> {
    match raw.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => Ok(Some(text::required("title", Some(t), text::TITLE_MAX)?)),
    }
}

/// Validated changes of `topics.update`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopicPatch {
    /// New heading, 1–255 characters after trimming; a blank one is refused, not ignored.
    pub title: Option<String>,
    /// New summary, up to 50,000 characters after trimming; may be empty.
    pub description: Option<String>,
    /// New details, up to 50,000 characters after trimming; may be empty.
    pub text: Option<String>,
    /// Merged into the stored meta, whitelisted keys only.
    pub meta: Option<Meta>,
}

impl TopicPatch {
    /// Validates `topics.update`'s content; absent fields stay `None`. Refused, naming the
    /// field, when the title is blank, a text is too long, or `meta` is not an object within its
    /// limits.
    pub fn new(
        title: Option<&str>,
        description: Option<&str>,
        text: Option<&str>,
        meta: Option<&Value>,
    ) -> DomainResult<Self> {
        Ok(Self {
            title: text::required_if_given("title", title, text::TITLE_MAX)?,
            description: text::optional("description", description, text::TEXT_MAX)?,
            text: text::optional("text", text, text::TEXT_MAX)?,
            meta: topic_meta(meta)?,
        })
    }

    /// Refused when the merged meta would be too large (the topic is then dropped unsaved).
    /// `updatedAt` moves only when something changed.
    pub fn apply(self, topic: &mut Topic, now: Timestamp) -> DomainResult<()> {
        let before = topic.clone();
        if let Some(title) = self.title {
            topic.title = title;
        }
        if let Some(description) = self.description {
            topic.description = description;
        }
        if let Some(text) = self.text {
            topic.text = text;
        }
        if let Some(patch) = self.meta {
            meta::merge_bounded("meta", &mut topic.meta, &patch)?;
        }
        if *topic != before {
            topic.updated_at = now;
        }
        Ok(())
    }
}

/// What a topic list is ordered by (`sort`); ties are broken by id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TopicSort {
    /// `createdAt`: when created.
    #[default]
    CreatedAt,
    /// `updatedAt`: when last really changed.
    UpdatedAt,
    /// `title`: the lowercased title, compared bytewise (not by any locale's collation).
    Title,
    /// `voteCount`: the number of votes.
    VoteCount,
}

impl TopicSort {
    /// Reads `createdAt`, `updatedAt`, `title` or `voteCount`, exactly; anything else is
    /// refused.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "createdAt" => Ok(Self::CreatedAt),
            "updatedAt" => Ok(Self::UpdatedAt),
            "title" => Ok(Self::Title),
            "voteCount" => Ok(Self::VoteCount),
            _ => Err(crate::DomainError::invalid(
                "sort must be one of createdAt, updatedAt, title, voteCount",
            )),
        }
    }
}

/// A topic list: the team's topics narrowed by roadmap and stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicQuery {
    /// Only topics of this roadmap; every roadmap's when `None`.
    pub roadmap_id: Option<RoadmapId>,
    /// Only topics on this stage; every stage's when `None`.
    pub stage_id: Option<StageId>,
    /// Only published topics (the public view); the team sees all.
    pub published_only: bool,
    /// Ties are broken by id in the same direction.
    pub sort: TopicSort,
    /// Ascending or descending; the topic lists default to descending.
    pub direction: Direction,
    /// Which page: `limit` (at most 100) and `offset`.
    pub page: PageRequest,
}

/// One view of a topic (`TopicStore::record_topic_visit`). It counts unless the same viewer
/// was counted for the topic within the last `window_seconds`.
///
/// ```
/// use sounding_domain::{timestamp::Timestamp, topic::*, TopicId};
///
/// let at = Timestamp::from_unix_seconds(1_000_000).unwrap();
/// let visit = TopicVisit {
///     topic: TopicId::new(),
///     viewer: "address:203.0.113.7".into(),
///     at,
///     window_seconds: VISIT_WINDOW_SECONDS,
/// };
/// assert!(visit.counts_after(None), "a first view counts");
/// assert!(!visit.counts_after(Some(at.plus_seconds(-60))), "a minute later: not again");
/// assert!(visit.counts_after(Some(at.plus_seconds(-120))), "two minutes later: again");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVisit {
    /// The topic viewed.
    pub topic: TopicId,
    /// Who viewed: one key per subscriber or per address.
    pub viewer: String,
    /// When the view happened.
    pub at: Timestamp,
    /// How long a counted view keeps the same viewer's next ones from counting
    /// ([`VISIT_WINDOW_SECONDS`] in use).
    pub window_seconds: i64,
}

impl TopicVisit {
    /// The latest time a viewer's last counted view may have been for this one to count.
    pub fn cutoff(&self) -> Timestamp {
        self.at.plus_seconds(-self.window_seconds)
    }

    /// Whether this view counts, given when the viewer's last counted view was (if ever).
    pub fn counts_after(&self, last_counted: Option<Timestamp>) -> bool {
        last_counted.is_none_or(|last| last <= self.cutoff())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_visit_counts_once_per_viewer_per_window() {
        let at = Timestamp::from_unix_seconds(1_000).unwrap();
        let visit = TopicVisit {
            topic: TopicId::new(),
            viewer: "address:127.0.0.1".into(),
            at,
            window_seconds: 120,
        };
        assert!(visit.counts_after(None));
        assert!(visit.counts_after(Some(at.plus_seconds(-120))));
        assert!(!visit.counts_after(Some(at.plus_seconds(-119))));
    }

    #[test]
    fn meta_keeps_only_whitelisted_keys() {
        let meta = topic_meta(Some(&json!({"ctaLink": "https://x.io", "secret": 1})))
            .unwrap()
            .unwrap();
        assert_eq!(Value::Object(meta), json!({"ctaLink": "https://x.io"}));
    }

    #[test]
    fn description_defaults_to_the_title() {
        let draft = TopicDraft::new("Dark mode".into(), None, None, None).unwrap();
        assert_eq!(draft.description, "Dark mode");
        let draft = TopicDraft::new("Dark mode".into(), Some(" "), None, None).unwrap();
        assert_eq!(draft.description, "Dark mode");
        assert_eq!(topic_title(Some("  ")).unwrap(), None);
        assert_eq!(topic_title(Some(" X ")).unwrap(), Some("X".into()));
    }
}
