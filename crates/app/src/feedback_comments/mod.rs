//! Comments on feedback: `public/feedback-comments.create` (subscriber token),
//! `feedback-comments.create` (team, on behalf of a subscriber) and
//! `public/feedback-comments.list` (either credential). Private comments are for team members.

use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback::FeedbackView,
    feedback_comment::{
        comment_text, CommentQuery, CommentSort, CommentView, Direction, FeedbackComment,
    },
    page::{PageRequest, Paged},
    ports::{Clock, Store},
    subscriber::{OnBehalfOf, Subscriber, SubscriberRef},
    FeedbackCommentId, FeedbackId, Timestamp,
};

use crate::{
    auth::is_team_member,
    error::{AppError, AppResult},
    feedback::{ensure_feedback_readable, feedback_not_found, readable_feedback, team_feedback},
    notifications::notify,
    subscribers::subscriber_for,
    wire::{self, CommentJson},
};

/// Comments per page when the caller does not say (interface §8).
pub const DEFAULT_LIMIT: i64 = 20;

/// `public/feedback-comments.create` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct PublicCommentInput {
    pub feedback_id: Option<String>,
    pub text: Option<String>,
    pub is_private: Option<bool>,
}

/// Team `feedback-comments.create`: the author is the subscriber with `subscriber_id`, or
/// with `email` (created when new), or else the key's user.
#[derive(Debug, Clone, Default)]
pub struct TeamCommentInput {
    pub feedback_id: Option<String>,
    pub text: Option<String>,
    pub subscriber_id: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    /// `public` (default) or `private`.
    pub kind: Option<String>,
    pub is_private: Option<bool>,
}

/// `public/feedback-comments.list` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct CommentListInput {
    pub feedback_id: Option<String>,
    pub sort: Option<String>,
    pub direction: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

pub async fn create_public_comment(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: PublicCommentInput,
) -> AppResult<CommentView> {
    let id = FeedbackId::parse_required("feedbackId", input.feedback_id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let caller = Caller::Subscriber(session.clone());
    let feedback = readable_feedback(store, &caller, id).await?;
    let is_private = input.is_private.unwrap_or(false);
    if is_private && !is_team_member(store, &caller).await? {
        return Err(AppError::forbidden(
            "Only team members can post private comments",
        ));
    }
    insert(
        store,
        &feedback,
        session.subscriber.clone(),
        text,
        is_private,
        clock.now(),
    )
    .await
}

pub async fn create_team_comment(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: TeamCommentInput,
) -> AppResult<CommentView> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("feedbackId", input.feedback_id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let is_private = match (input.kind.as_deref(), input.is_private) {
        (Some("private"), _) => true,
        (Some("public"), _) => false,
        (Some(_), _) => return Err(AppError::invalid("type must be one of public, private")),
        (None, flag) => flag.unwrap_or(false),
    };
    let who = OnBehalfOf::parse(
        input.subscriber_id.as_deref(),
        input.email.as_deref(),
        input.name.as_deref(),
    )?;
    let feedback = team_feedback(store, &Caller::Team(caller.clone()), id).await?;
    let now = clock.now();
    let author = subscriber_for(store, caller, who, now).await?;
    insert(store, &feedback, author, text, is_private, now).await
}

async fn insert(
    store: &dyn Store,
    feedback: &FeedbackView,
    author: Subscriber,
    text: String,
    is_private: bool,
    now: Timestamp,
) -> AppResult<CommentView> {
    let comment = FeedbackComment {
        id: FeedbackCommentId::new(),
        team_id: feedback.feedback.team_id,
        feedback_id: feedback.feedback.id,
        subscriber_id: author.id,
        text,
        is_private,
        created_at: now,
        updated_at: now,
    };
    let view = CommentView {
        comment,
        author: Some(SubscriberRef::from(&author)),
    };
    let event = NewEvent::new(
        view.comment.team_id,
        EventKind::FeedbackCommentsCreate,
        now,
        &[
            ("commentId", view.comment.id.to_string()),
            ("feedbackId", view.comment.feedback_id.to_string()),
            ("subscriberId", view.comment.subscriber_id.to_string()),
        ],
        wire::to_value(&CommentJson::from(&view)),
    );
    // Followers hear of public comments only; the author is not told of their own.
    let event = if is_private {
        event
    } else {
        event.notifying(notify::feedback_comment(
            feedback,
            view.comment.id.0,
            view.comment.subscriber_id,
        ))
    };
    if store.insert_comment(&view.comment, &[event]).await? {
        Ok(view)
    } else {
        Err(feedback_not_found())
    }
}

pub async fn list_comments(
    store: &dyn Store,
    caller: &Caller,
    input: CommentListInput,
) -> AppResult<Paged<CommentView>> {
    let id = FeedbackId::parse_required("feedbackId", input.feedback_id.as_deref())?;
    let sort = input
        .sort
        .as_deref()
        .map(CommentSort::parse)
        .transpose()?
        .unwrap_or_default();
    let direction = input
        .direction
        .as_deref()
        .map(Direction::parse)
        .transpose()?
        .unwrap_or_default();
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?;
    ensure_feedback_readable(store, caller, id).await?;
    let query = CommentQuery {
        include_private: is_team_member(store, caller).await?,
        sort,
        direction,
        page,
    };
    Ok(store.comments(caller.team_id(), id, &query).await?)
}
