//! Threaded comments on topics: a comment may answer another of the same topic, to any depth.
//! Each comment remembers its thread's top-level comment (`root_id`) so a page of threads and
//! all their replies load in a fixed number of queries.

use crate::{
    error::{DomainError, DomainResult},
    feedback_comment::{CommentSort, Direction},
    ids::{SubscriberId, TeamId, TopicCommentId, TopicId},
    page::PageRequest,
    subscriber::SubscriberRef,
    timestamp::Timestamp,
    topic::{Topic, TopicCondition, MEMBER_VISIBLE_TOPIC, PUBLIC_TOPIC},
};

/// Where a topic comment was written, as the client says (interface: `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommentSource {
    /// In the embedded widget.
    Widget,
    /// Through the API directly; the default when the client names none.
    #[default]
    Api,
    /// From an e-mail reply.
    Email,
}

impl CommentSource {
    /// The wire name: `widget`, `api` or `email`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Widget => "widget",
            Self::Api => "api",
            Self::Email => "email",
        }
    }

    /// Reads a wire name; anything else is invalid.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "widget" => Ok(Self::Widget),
            "api" => Ok(Self::Api),
            "email" => Ok(Self::Email),
            _ => Err(DomainError::invalid(
                "source must be one of widget, api, email",
            )),
        }
    }
}

/// A comment on a topic, or a reply to one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicComment {
    /// Names the comment in `topic-comments.*` and as a reply's `parentId`.
    pub id: TopicCommentId,
    /// The topic's team.
    pub team_id: TeamId,
    /// The topic it is on; a reply is on its parent's topic.
    pub topic_id: TopicId,
    /// The subscriber who wrote it; kept when they are deleted.
    pub creator_id: SubscriberId,
    /// `None` for a top-level comment.
    pub parent_id: Option<TopicCommentId>,
    /// The thread's top-level comment (itself for a top-level one).
    pub root_id: TopicCommentId,
    /// 1–10,000 characters after trimming; [`TOMBSTONE_TEXT`] once deleted.
    pub text: String,
    /// Where it was written.
    pub source: CommentSource,
    /// When it was written.
    pub created_at: Timestamp,
    /// The last real change of its text, or its deletion.
    pub updated_at: Timestamp,
    /// Set when the team deleted the comment while replies answered it: the row stays as a
    /// tombstone (text [`TOMBSTONE_TEXT`]) so the replies keep their place in the thread.
    pub deleted_at: Option<Timestamp>,
}

/// The text a deleted comment that still has replies shows instead of its own (which is
/// erased).
pub const TOMBSTONE_TEXT: &str = "[deleted]";

/// What deleting a comment does to its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// Nothing answers it: the row goes.
    Remove,
    /// Replies answer it: the row stays as a tombstone, its text erased.
    Tombstone,
}

impl TopicComment {
    /// A tombstone is a deleted comment: it can be neither edited nor deleted again, nor
    /// answered, and it is not counted in the topic's `commentCount`.
    pub fn is_deleted(&self) -> bool {
        self.deleted_at.is_some()
    }

    /// `topic-comments.update`: the new text; `updatedAt` moves only on a real change.
    pub fn edit_text(&mut self, text: String, now: Timestamp) {
        if self.text != text {
            self.text = text;
            self.updated_at = now;
        }
    }

    /// How deleting the comment leaves it, given whether any comment answers it.
    pub fn removal(has_replies: bool) -> Removal {
        if has_replies {
            Removal::Tombstone
        } else {
            Removal::Remove
        }
    }

    /// The comment turned into a tombstone at `now`: its text erased.
    pub fn tombstone(&mut self, now: Timestamp) {
        self.text = TOMBSTONE_TEXT.to_owned();
        self.deleted_at = Some(now);
        self.updated_at = now;
    }
}

/// The topic a comment belongs to, as shown in team-wide lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicRef {
    /// The topic's `topicId`.
    pub id: TopicId,
    /// Its current title.
    pub title: String,
    /// Its short id, the end of its `url`.
    pub url_id: String,
}

/// A comment as read: with its author (`None` once the subscriber is deleted) and topic.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicCommentView {
    /// The comment as stored.
    pub comment: TopicComment,
    /// Who wrote it, as they are now.
    pub author: Option<SubscriberRef>,
    /// The topic it is on.
    pub topic: TopicRef,
}

/// A top-level comment with every reply below it, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct CommentThread {
    /// The top-level comment; possibly a tombstone that replies keep.
    pub root: TopicCommentView,
    /// Every comment whose `root_id` is the root's, at any depth, oldest first.
    pub replies: Vec<TopicCommentView>,
}

/// Which topics' comments a thread list may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadScope {
    /// Published topics on public stages: what outsiders see.
    Public,
    /// Published topics on any stage: what a team member sees through the public operations.
    Member,
    /// Every topic of the team.
    Team,
}

impl ThreadScope {
    /// The conditions a topic meets for its comments to be listed in this scope.
    pub fn conditions(self) -> &'static [TopicCondition] {
        match self {
            ThreadScope::Public => &PUBLIC_TOPIC,
            ThreadScope::Member => &MEMBER_VISIBLE_TOPIC,
            ThreadScope::Team => &[],
        }
    }

    /// Whether `topic`, on a stage private or not, is in this scope.
    pub fn includes(self, topic: &Topic, stage_is_private: bool) -> bool {
        self.conditions()
            .iter()
            .all(|c| c.holds(topic, stage_is_private))
    }
}

/// A validated `topic-comments.list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadQuery {
    /// One topic, or every topic of the team in scope.
    pub topic: Option<TopicId>,
    /// Which topics the caller may see comments of.
    pub scope: ThreadScope,
    /// Orders the top-level comments (ties by id in the same direction).
    pub sort: CommentSort,
    /// Whether `sort` runs ascending or descending.
    pub direction: Direction,
    /// The slice of top-level comments to return; replies come with their thread.
    pub page: PageRequest,
}
