//! Comments on feedback: public, or private (visible to team members only).

use crate::{
    error::{DomainError, DomainResult},
    ids::{FeedbackCommentId, FeedbackId, SubscriberId, TeamId},
    page::PageRequest,
    subscriber::SubscriberRef,
    text,
    timestamp::Timestamp,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackComment {
    pub id: FeedbackCommentId,
    pub team_id: TeamId,
    pub feedback_id: FeedbackId,
    pub subscriber_id: SubscriberId,
    pub text: String,
    pub is_private: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A comment as read: with its author (`None` only if the author's row is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct CommentView {
    pub comment: FeedbackComment,
    pub author: Option<SubscriberRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CommentSort {
    #[default]
    CreatedAt,
    UpdatedAt,
}

impl CommentSort {
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
    #[default]
    Asc,
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
    pub sort: CommentSort,
    pub direction: Direction,
    pub page: PageRequest,
}

/// Comment text: 1..=10,000 characters after trimming.
pub fn comment_text(raw: Option<&str>) -> DomainResult<String> {
    text::required("text", raw, text::COMMENT_MAX)
}

/// A validated team `feedback-comments.update`: new text, and the privacy when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentPatch {
    pub text: String,
    pub is_private: Option<bool>,
}

impl CommentPatch {
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
