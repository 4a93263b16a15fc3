//! Comments on feedback: public, or private (visible to team members only).

use crate::{
    error::DomainResult,
    ids::{FeedbackCommentId, FeedbackId, SubscriberId, TeamId},
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

/// Comment text: 1..=10,000 characters after trimming.
pub fn comment_text(raw: Option<&str>) -> DomainResult<String> {
    text::required("text", raw, text::COMMENT_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DomainError;

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
