//! Comments on feedback: public, or private (visible to team members only).

use crate::{
    error::{DomainError, DomainResult},
    ids::{FeedbackCommentId, FeedbackId, SubscriberId, TeamId},
    page::PageRequest,
    subscriber::SubscriberRef,
    text,
    timestamp::Timestamp,
};

/// A comment on a feedback item, as stored. Comments are flat (no replies); the team
/// moderates them afterwards by editing or deleting them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackComment {
    /// Time-ordered UUID made at creation.
    pub id: FeedbackCommentId,
    /// The team owning the item commented on.
    pub team_id: TeamId,
    /// The item it is on; the merge target once its item was merged into another.
    pub feedback_id: FeedbackId,
    /// The author.
    pub subscriber_id: SubscriberId,
    /// 1–10,000 characters after trimming (see [`comment_text`]); a moderator may replace it.
    pub text: String,
    /// Visible to team members only; it still counts in the item's comment count.
    pub is_private: bool,
    /// When it was posted; kept when a merge moves it.
    pub created_at: Timestamp,
    /// Moves only when an edit really changes the text or the privacy.
    pub updated_at: Timestamp,
}

/// A comment as read: with its author (`None` only if the author's row is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct CommentView {
    /// The comment as stored.
    pub comment: FeedbackComment,
    /// The author as a reader sees them.
    pub author: Option<SubscriberRef>,
}

/// What a comment list is ordered by (`sort`); ties are broken by id, in the same
/// direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CommentSort {
    /// `createdAt`: when posted.
    #[default]
    CreatedAt,
    /// `updatedAt`: when last really edited.
    UpdatedAt,
}

impl CommentSort {
    /// Reads `createdAt` or `updatedAt`, exactly; anything else is refused.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw {
            "createdAt" => Ok(Self::CreatedAt),
            "updatedAt" => Ok(Self::UpdatedAt),
            _ => Err(DomainError::invalid(
                "sort must be one of createdAt, updatedAt",
            )),
        }
    }
}

/// Sort direction of the comment lists: oldest first by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// `ASC`: smallest first (oldest, for the time keys).
    #[default]
    Asc,
    /// `DESC`: largest first (newest, for the time keys).
    Desc,
}

impl Direction {
    /// `ASC` or `DESC`, in any letter case.
    pub fn parse(raw: &str) -> DomainResult<Self> {
        match raw.to_ascii_uppercase().as_str() {
            "ASC" => Ok(Self::Asc),
            "DESC" => Ok(Self::Desc),
            _ => Err(DomainError::invalid("direction must be one of ASC, DESC")),
        }
    }
}

/// A validated `feedback-comments.list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommentQuery {
    /// Private comments are listed only for team members.
    pub include_private: bool,
    /// What the comments are ordered by.
    pub sort: CommentSort,
    /// Oldest first unless the caller asks for `DESC`.
    pub direction: Direction,
    /// Which page: `limit` (20 unless given, at most 100) and `offset`.
    pub page: PageRequest,
}

/// Comment text: 1..=10,000 characters after trimming.
pub fn comment_text(raw: Option<&str>) -> DomainResult<String> {
    text::required("text", raw, text::COMMENT_MAX)
}

/// A validated team `feedback-comments.update`: new text, and the privacy when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentPatch {
    /// The new text, 1–10,000 characters after trimming; always required.
    pub text: String,
    /// Makes the comment private (`true`) or public (`false`); `None` keeps its privacy.
    pub is_private: Option<bool>,
}

impl CommentPatch {
    /// Validates an edit: the text is required, as [`comment_text`] checks it.
    pub fn new(text: Option<&str>, is_private: Option<bool>) -> DomainResult<Self> {
        Ok(Self {
            text: comment_text(text)?,
            is_private,
        })
    }

    /// `updatedAt` moves only when the text or the privacy really changes.
    pub fn apply(self, comment: &mut FeedbackComment, now: Timestamp) {
        let before = comment.clone();
        comment.text = self.text;
        if let Some(is_private) = self.is_private {
            comment.is_private = is_private;
        }
        if *comment != before {
            comment.updated_at = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DomainError;

    #[test]
    fn a_patch_moves_updated_at_only_on_a_real_change() {
        let at = |s| Timestamp::from_unix_seconds(s).unwrap();
        let mut comment = FeedbackComment {
            id: FeedbackCommentId::new(),
            team_id: TeamId::new(),
            feedback_id: FeedbackId::new(),
            subscriber_id: SubscriberId::new(),
            text: "Spam".into(),
            is_private: false,
            created_at: at(1),
            updated_at: at(1),
        };
        CommentPatch::new(Some(" Spam "), Some(false))
            .unwrap()
            .apply(&mut comment, at(2));
        assert_eq!(
            comment.updated_at,
            at(1),
            "same text and privacy: unchanged"
        );
        CommentPatch::new(Some("Spam"), Some(true))
            .unwrap()
            .apply(&mut comment, at(3));
        assert_eq!((comment.is_private, comment.updated_at), (true, at(3)));
        CommentPatch::new(Some("[removed]"), None)
            .unwrap()
            .apply(&mut comment, at(4));
        assert_eq!(
            (
                comment.text.as_str(),
                comment.is_private,
                comment.updated_at
            ),
            ("[removed]", true, at(4))
        );
        assert!(CommentPatch::new(None, Some(true)).is_err());
    }

    #[test]
    fn comment_text_is_bounded_and_required() {
        assert_eq!(
            comment_text(Some(" ")),
            Err(DomainError::invalid("text is required"))
        );
        assert!(comment_text(Some(&"x".repeat(10_000))).is_ok());
        assert_eq!(
            comment_text(Some(&"x".repeat(10_001))),
            Err(DomainError::invalid(
                "text must be at most 10000 characters"
            ))
        );
    }
}
