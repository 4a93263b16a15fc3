//! The JSON shapes of feedback, comments and votes exactly as the API returns them. They live
//! here, not in the HTTP adapter, because event payloads carry "the resource as the API returns
//! it" (decisions §6) and the use cases write those events. With the `openapi` feature they
//! also describe themselves for the OpenAPI document.

use serde::Serialize;
use sounding_domain::{
    feedback::{BoardRef, FeedbackView},
    feedback_comment::CommentView,
    feedback_vote::FeedbackVote,
    meta::Meta,
    slug,
    subscriber::{Email, SubscriberRef},
    tag::TagRef,
    topic::{StageRef, TopicView},
    topic_comment::{CommentThread, TopicCommentView},
    topic_vote::TopicVote,
    BoardId, FeedbackCommentId, FeedbackId, FeedbackVoteId, RoadmapId, StageId, SubscriberId,
    TagId, TeamId, Timestamp, TopicCommentId, TopicId, TopicVoteId,
};

/// `From<&$from>` for a wire shape built by value from `$from`: the borrowed form clones.
/// (A blanket impl over every `From<T>` would overlap the standard library's.)
macro_rules! from_ref_by_clone {
    ($from:ty => $to:ty) => {
        impl From<&$from> for $to {
            fn from(value: &$from) -> Self {
                Self::from(value.clone())
            }
        }
    };
}

/// A subscriber as shown with the things they wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SubscriberSummary {
    /// The subscriber's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: SubscriberId,
    /// Display name; `Deleted subscriber` once the team deleted them.
    pub name: String,
    /// Lowercased e-mail; null for a deleted subscriber or an anonymous one who gave none.
    pub email: Option<String>,
    /// An http(s) image URL, or null.
    pub avatar_url: Option<String>,
}

from_ref_by_clone!(SubscriberRef => SubscriberSummary);

impl From<SubscriberRef> for SubscriberSummary {
    fn from(s: SubscriberRef) -> Self {
        Self {
            id: s.id,
            name: s.name,
            email: s.email.map(Email::into_string),
            avatar_url: s.avatar_url,
        }
    }
}

/// The board a feedback item is on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardSummary {
    /// The board's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: BoardId,
    /// Display name.
    pub name: String,
    /// URL-safe identifier, unique in the team.
    pub slug: String,
}

impl From<&BoardRef> for BoardSummary {
    fn from(b: &BoardRef) -> Self {
        Self {
            id: b.id,
            name: b.name.clone(),
            slug: b.slug.clone(),
        }
    }
}

/// A tag on a feedback item: `{id, name, color}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagJson {
    /// The tag's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: TagId,
    /// Display name, unique in the team ignoring case.
    pub name: String,
    /// `#RRGGBB`.
    #[cfg_attr(feature = "openapi", schema(example = "#3B82F6"))]
    pub color: String,
}

impl From<&TagRef> for TagJson {
    fn from(t: &TagRef) -> Self {
        Self {
            id: t.id,
            name: t.name.clone(),
            color: t.color.clone(),
        }
    }
}

/// A feedback item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FeedbackJson {
    /// The item's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: FeedbackId,
    /// Ten characters of `[a-z0-9]`, unique in the team; kept when the title changes.
    #[cfg_attr(feature = "openapi", schema(example = "k3j9x0a2mq"))]
    pub url_id: String,
    /// `/<title-slug>-<urlId>`, regenerated when the title changes.
    #[cfg_attr(feature = "openapi", schema(example = "/dark-mode-k3j9x0a2mq"))]
    pub url: String,
    /// Never empty; at most 255 characters.
    pub title: String,
    /// Plain text; empty when none was given.
    pub text: String,
    /// `in_review`, `in_progress`, `planned`, `completed` or `closed`.
    pub status: &'static str,
    /// `low`, `medium`, `high` or `urgent`.
    pub priority: &'static str,
    /// The custom feedback type (`bug`, `idea`, …), if any.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Absent when the item is on no board.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Uuid))]
    pub board_id: Option<BoardId>,
    /// `{id, name, slug}`, or null when the item is on no board.
    pub board: Option<BoardSummary>,
    /// The UUID of the subscriber who created the item.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub creator_id: SubscriberId,
    /// The creator.
    pub subscriber: Option<SubscriberSummary>,
    /// The owning team's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub team_id: TeamId,
    /// Votes, counted live.
    pub feedback_votes_count: i64,
    /// Comments (public and private), counted live.
    pub feedback_comments_count: i64,
    /// `{id, name, color}` of each tag, by name ignoring case; `[]` when none.
    pub tags: Vec<TagJson>,
    /// Custom metadata as the client sent it, merged key by key on update.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub meta: Meta,
    /// Null while awaiting moderation.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub published_at: Option<Timestamp>,
    /// When the item was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When the item last really changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
    /// When the team archived the item (it is then left out of lists); null otherwise.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub archived_at: Option<Timestamp>,
    /// The UUID of the subscriber who made the latest change; null until it is first edited.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Uuid))]
    pub last_modified_by_id: Option<SubscriberId>,
    /// That subscriber; null until the item is first edited.
    pub last_modified_by: Option<SubscriberSummary>,
    /// Only in `public/feedbacks.info` under a subscriber token: whether the caller follows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_subscribed: Option<bool>,
    /// Only in `public/feedbacks.list` under a subscriber token: whether the caller voted on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_voted: Option<bool>,
}

from_ref_by_clone!(FeedbackView => FeedbackJson);

/// By value, so a page of items moves its text into the response instead of copying it.
impl From<FeedbackView> for FeedbackJson {
    fn from(view: FeedbackView) -> Self {
        let url = view.feedback.url();
        let f = view.feedback;
        Self {
            id: f.id,
            url_id: f.url_id,
            url,
            title: f.title,
            text: f.text,
            status: f.status.as_str(),
            priority: f.priority.as_str(),
            kind: f.kind,
            board_id: f.board_id,
            board: view.board.as_ref().map(BoardSummary::from),
            creator_id: f.creator_id,
            subscriber: view.creator.map(SubscriberSummary::from),
            team_id: f.team_id,
            feedback_votes_count: view.vote_count,
            feedback_comments_count: view.comment_count,
            tags: view.tags.iter().map(TagJson::from).collect(),
            meta: f.meta,
            published_at: f.published_at,
            created_at: f.created_at,
            updated_at: f.updated_at,
            archived_at: f.archived_at,
            last_modified_by_id: f.last_modified_by_id,
            last_modified_by: view.last_modified_by.map(SubscriberSummary::from),
            is_subscribed: None,
            has_voted: None,
        }
    }
}

/// A comment on a feedback item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommentJson {
    /// The comment's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: FeedbackCommentId,
    /// 1 to 10,000 characters.
    pub text: String,
    /// The UUID of the item commented on.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub feedback_id: FeedbackId,
    /// The UUID of the author.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub subscriber_id: SubscriberId,
    /// The author.
    pub subscriber: Option<SubscriberSummary>,
    /// True: visible to team members only.
    pub is_private: bool,
    /// When the comment was posted.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When its text or privacy last changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
}

impl From<&CommentView> for CommentJson {
    fn from(view: &CommentView) -> Self {
        let c = &view.comment;
        Self {
            id: c.id,
            text: c.text.clone(),
            feedback_id: c.feedback_id,
            subscriber_id: c.subscriber_id,
            subscriber: view.author.as_ref().map(SubscriberSummary::from),
            is_private: c.is_private,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// A vote on a feedback item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct VoteJson {
    /// The vote's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: FeedbackVoteId,
    /// The UUID of the item voted for.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub feedback_id: FeedbackId,
    /// The UUID of the voter.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub subscriber_id: SubscriberId,
    /// When the vote was cast.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
}

impl From<&FeedbackVote> for VoteJson {
    fn from(v: &FeedbackVote) -> Self {
        Self {
            id: v.id,
            feedback_id: v.feedback_id,
            subscriber_id: v.subscriber_id,
            created_at: v.created_at,
        }
    }
}

/// The stage a topic is on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StageSummary {
    /// The stage's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: StageId,
    /// Display name.
    pub name: String,
    /// Position in the roadmap: 1, 2, 3… without gaps.
    pub order: i64,
}

impl From<&StageRef> for StageSummary {
    fn from(s: &StageRef) -> Self {
        Self {
            id: s.id,
            name: s.name.clone(),
            order: s.order,
        }
    }
}

/// A topic (feature request) on a roadmap stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TopicJson {
    /// The topic's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: TopicId,
    /// Ten characters of `[a-z0-9]`, unique in the team; kept when the title changes.
    #[cfg_attr(feature = "openapi", schema(example = "p2k9x0a2mq"))]
    pub url_id: String,
    /// `/<title-slug>-<urlId>`, following the current title.
    #[cfg_attr(feature = "openapi", schema(example = "/dark-mode-p2k9x0a2mq"))]
    pub url: String,
    /// Never empty; at most 255 characters.
    pub title: String,
    /// Defaults to the title.
    pub description: String,
    /// Full details; empty when none were given.
    pub text: String,
    /// Null while awaiting moderation.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub published_at: Option<Timestamp>,
    /// When the topic was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When the topic last really changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
    /// Views, counted once per viewer per 2 minutes.
    pub visits: i64,
    /// The UUID of the roadmap the topic's stage belongs to.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub roadmap_id: RoadmapId,
    /// The UUID of the stage the topic is in.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub stage_id: StageId,
    /// `{id, name, order}` of that stage.
    pub stage: StageSummary,
    /// The creator.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub subscriber_id: SubscriberId,
    /// Votes on the topic.
    pub vote_count: i64,
    /// Comments and replies on the topic, deleted ones (tombstones) left out.
    pub comment_count: i64,
    /// Only `ctaTitle`, `ctaLink`, `ctaImage`, `description`, `feedback`, `projectId`.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub meta: Meta,
}

impl From<&TopicView> for TopicJson {
    fn from(view: &TopicView) -> Self {
        let t = &view.topic;
        Self {
            id: t.id,
            url_id: t.url_id.clone(),
            url: t.url(),
            title: t.title.clone(),
            description: t.description.clone(),
            text: t.text.clone(),
            published_at: t.published_at,
            created_at: t.created_at,
            updated_at: t.updated_at,
            visits: t.visits,
            roadmap_id: t.roadmap_id,
            stage_id: t.stage_id,
            stage: (&view.stage).into(),
            subscriber_id: t.subscriber_id,
            vote_count: view.vote_count,
            comment_count: view.comment_count,
            meta: t.meta.clone(),
        }
    }
}

/// The author of a topic comment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CommentAuthor {
    /// The subscriber's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: SubscriberId,
    /// Display name; `Deleted subscriber` once the team deleted them.
    pub name: String,
    /// Lowercased e-mail; null for a deleted subscriber or an anonymous one who gave none.
    pub email: Option<String>,
}

impl From<SubscriberRef> for CommentAuthor {
    fn from(s: SubscriberRef) -> Self {
        Self {
            id: s.id,
            name: s.name,
            email: s.email.map(Email::into_string),
        }
    }
}

/// The topic a comment is on, in team-wide comment lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TopicSummary {
    /// The topic's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: TopicId,
    /// The topic's current title.
    pub title: String,
    /// `/<title-slug>-<urlId>` of the topic.
    pub url: String,
}

/// A comment on a topic. In lists, a top-level comment carries `replies` (every comment below
/// it, oldest first) and, when the list spans the team, `topic`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TopicCommentJson {
    /// The comment's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: TopicCommentId,
    /// 1 to 10,000 characters; `[deleted]` on a tombstone.
    pub text: String,
    /// The UUID of the topic commented on.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub topic_id: TopicId,
    /// The author (a subscriber).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub creator_id: SubscriberId,
    /// Null for a top-level comment.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Uuid))]
    pub parent_id: Option<TopicCommentId>,
    /// `widget`, `api` or `email`.
    pub source: &'static str,
    /// When the comment was posted.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When its text last changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
    /// `{id, name, email}`; null when the subscriber was deleted.
    pub subscriber: Option<CommentAuthor>,
    /// Only on a tombstone: when the team deleted the comment, which replies still answer
    /// (its text is then `[deleted]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub deleted_at: Option<Timestamp>,
    /// `{id, title, url}` of the topic; only in lists that span every topic of the team.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<TopicSummary>,
    /// In lists, on a top-level comment: every reply below it, at any depth, oldest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub replies: Option<Vec<TopicCommentJson>>,
}

from_ref_by_clone!(TopicCommentView => TopicCommentJson);

impl From<TopicCommentView> for TopicCommentJson {
    fn from(view: TopicCommentView) -> Self {
        let c = view.comment;
        Self {
            id: c.id,
            text: c.text,
            topic_id: c.topic_id,
            creator_id: c.creator_id,
            parent_id: c.parent_id,
            source: c.source.as_str(),
            created_at: c.created_at,
            updated_at: c.updated_at,
            subscriber: view.author.map(CommentAuthor::from),
            deleted_at: c.deleted_at,
            topic: None,
            replies: None,
        }
    }
}

impl TopicCommentJson {
    /// A thread as listed; `with_topic` for team-wide lists. By value, so the page's text
    /// moves into the response instead of being copied.
    pub fn thread(thread: CommentThread, with_topic: bool) -> Self {
        let topic = with_topic.then(|| {
            let t = &thread.root.topic;
            TopicSummary {
                id: t.id,
                title: t.title.clone(),
                url: slug::url_path(&t.title, &t.url_id),
            }
        });
        let mut json = Self::from(thread.root);
        json.replies = Some(thread.replies.into_iter().map(Self::from).collect());
        json.topic = topic;
        json
    }
}

/// A vote on a topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TopicVoteJson {
    /// The vote's UUID.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub id: TopicVoteId,
    /// The UUID of the topic voted for.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub topic_id: TopicId,
    /// The UUID of the voter.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub creator_id: SubscriberId,
    /// When the vote was cast.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
}

impl From<&TopicVote> for TopicVoteJson {
    fn from(v: &TopicVote) -> Self {
        Self {
            id: v.id,
            topic_id: v.topic_id,
            creator_id: v.creator_id,
            created_at: v.created_at,
        }
    }
}
