//! Comments on feedback: `public/feedback-comments.create` (subscriber token),
//! `feedback-comments.create` (team, on behalf of a subscriber),
//! `public/feedback-comments.list` (either credential), and the team's moderation:
//! `feedback-comments.list|update|delete`. Private comments are for team members.

use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback::FeedbackView,
    feedback_comment::{
        comment_text, CommentPatch, CommentQuery, CommentSort, CommentView, Direction,
        FeedbackComment,
    },
    page::{PageRequest, Paged},
    ports::{AccessStore, Clock, FeedbackStore, SubscriberStore},
    subscriber::{OnBehalfOf, Subscriber, SubscriberRef},
    Entity, FeedbackCommentId, FeedbackId, Timestamp,
};

use crate::{
    error::{AppError, AppResult},
    feedback::{ensure_feedback_readable, feedback_not_found, readable_feedback, team_feedback},
    notifications::notify,
    subscribers::subscriber_for,
    wire::CommentJson,
};

/// Comments per page when the caller does not say (interface §8).
pub const DEFAULT_LIMIT: i64 = 20;

/// `public/feedback-comments.create` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct PublicCommentInput {
    /// `feedbackId`: the commented item's UUID; required.
    pub feedback_id: Option<String>,
    /// Required; 1 to 10,000 characters after trimming.
    pub text: Option<String>,
    /// `isPrivate`: visible to team members only; only team members may set it. `false` when
    /// absent.
    pub is_private: Option<bool>,
}

/// Team `feedback-comments.create`: the author is the subscriber with `subscriber_id`, or
/// with `email` (created when new), or else the key's user.
#[derive(Debug, Clone, Default)]
pub struct TeamCommentInput {
    /// `feedbackId`: the commented item's UUID, any item of the team; required.
    pub feedback_id: Option<String>,
    /// Required; 1 to 10,000 characters after trimming.
    pub text: Option<String>,
    /// `subscriberId`: the author, one of the team's subscribers; exclusive with `email`.
    pub subscriber_id: Option<String>,
    /// The author's e-mail: that subscriber, created with source `api` when new.
    pub email: Option<String>,
    /// The author's name, with `email`; at most 255 characters.
    pub name: Option<String>,
    /// `public` (default) or `private`.
    pub kind: Option<String>,
    /// `isPrivate`: visible to team members only; read only when `kind` is absent. `false` when
    /// absent.
    pub is_private: Option<bool>,
}

/// Team `feedback-comments.update` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct CommentChanges {
    /// The comment's UUID; required.
    pub id: Option<String>,
    /// The new text, required: 1 to 10,000 characters after trimming.
    pub text: Option<String>,
    /// `isPrivate`: the new privacy; unchanged when absent.
    pub is_private: Option<bool>,
}

/// `public/feedback-comments.list` (and the team's `feedback-comments.list`) as a client sent
/// it.
#[derive(Debug, Clone, Default)]
pub struct CommentListInput {
    /// `feedbackId`: the item whose comments to list; required.
    pub feedback_id: Option<String>,
    /// `createdAt` (the default) or `updatedAt`.
    pub sort: Option<String>,
    /// `ASC` (oldest first, the default) or `DESC`, in any case.
    pub direction: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Comments to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `public/feedback-comments.create`: the subscriber's comment, with its author; emits
/// `feedback-comments.create` and notifies the item's followers of a public one. 404 when
/// the subscriber cannot read the item; 403 for a private comment by a non-member.
pub async fn create_public_comment(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: PublicCommentInput,
) -> AppResult<CommentView> {
    let id = FeedbackId::parse_required("feedbackId", input.feedback_id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let caller = Caller::Subscriber(session.clone());
    let feedback = readable_feedback(store, &caller, id).await?;
    let is_private = input.is_private.unwrap_or(false);
    if is_private && !caller.is_team_member() {
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

/// Team `feedback-comments.create`: the comment, written as the subscriber the input names,
/// on any item of the team. Any key but a read-only one (403); 404 for an item or subscriber
/// the team does not have.
pub async fn create_team_comment(
    store: &(impl AccessStore + SubscriberStore + FeedbackStore + ?Sized),
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
    store: &(impl FeedbackStore + ?Sized),
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
        CommentJson::from(&view),
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

/// `public/feedback-comments.list`: a page of the item's comments with their authors; private
/// ones only for team members. Either credential; 404 when the caller cannot read the item.
pub async fn list_comments(
    store: &dyn FeedbackStore,
    caller: &Caller,
    input: CommentListInput,
) -> AppResult<Paged<CommentView>> {
    let (id, sort, direction, page) = list_params(&input)?;
    ensure_feedback_readable(store, caller, id).await?;
    let query = CommentQuery {
        include_private: caller.is_team_member(),
        sort,
        direction,
        page,
    };
    Ok(store.comments(caller.team_id(), id, &query).await?)
}

/// Team `feedback-comments.list`: the comments of any item of the team, published or not,
/// private ones included.
pub async fn list_team_comments(
    store: &dyn FeedbackStore,
    caller: &KeyHolder,
    input: CommentListInput,
) -> AppResult<Paged<CommentView>> {
    caller.require(Need::Read)?;
    let (id, sort, direction, page) = list_params(&input)?;
    // An item of another team is not found, like one that does not exist.
    store
        .feedback_reach(caller.team_id, id)
        .await?
        .ok_or_else(feedback_not_found)?;
    let query = CommentQuery {
        include_private: true,
        sort,
        direction,
        page,
    };
    Ok(store.comments(caller.team_id, id, &query).await?)
}

fn list_params(
    input: &CommentListInput,
) -> AppResult<(FeedbackId, CommentSort, Direction, PageRequest)> {
    let id = FeedbackId::parse_required("feedbackId", input.feedback_id.as_deref())?;
    let (sort, direction) = comment_order(
        input.sort.as_deref(),
        input.direction.as_deref(),
        Direction::default(),
    )?;
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?;
    Ok((id, sort, direction, page))
}

/// The order a comment list asks for: `sort` (`createdAt` when absent) and `direction`
/// (`default` when absent). Feedback and topic comments share it.
pub(crate) fn comment_order(
    sort: Option<&str>,
    direction: Option<&str>,
    default: Direction,
) -> AppResult<(CommentSort, Direction)> {
    let sort = sort
        .map(CommentSort::parse)
        .transpose()?
        .unwrap_or_default();
    let direction = direction
        .map(Direction::parse)
        .transpose()?
        .unwrap_or(default);
    Ok((sort, direction))
}

fn comment_not_found() -> AppError {
    AppError::not_found(Entity::Comment)
}

/// Team `feedback-comments.update`: new text, and the privacy when given. No event (none is
/// named for it); `updatedAt` moves only on a real change.
pub async fn update_team_comment(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: CommentChanges,
) -> AppResult<CommentView> {
    caller.require(Need::Write)?;
    let id = FeedbackCommentId::parse_required("id", input.id.as_deref())?;
    let patch = CommentPatch::new(input.text.as_deref(), input.is_private)?;
    let now = clock.now();
    let edited = store
        .edit_feedback_comment(
            caller.team_id,
            id,
            Box::new(move |view| {
                patch.apply(&mut view.comment, now);
                Ok(Vec::new())
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Comment)?)
}

/// Team `feedback-comments.delete`: removes the comment (its item's count drops with it) and
/// emits `feedback-comments.delete` with the comment as it was. Nobody is notified.
pub async fn delete_team_comment(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<FeedbackCommentId> {
    caller.require(Need::Write)?;
    let id = FeedbackCommentId::parse_required("id", id)?;
    let now = clock.now();
    let removed = store
        .delete_feedback_comment(
            caller.team_id,
            id,
            Box::new(move |view| {
                vec![NewEvent::new(
                    view.comment.team_id,
                    EventKind::FeedbackCommentsDelete,
                    now,
                    &[
                        ("commentId", view.comment.id.to_string()),
                        ("feedbackId", view.comment.feedback_id.to_string()),
                        ("subscriberId", view.comment.subscriber_id.to_string()),
                    ],
                    CommentJson::from(view),
                )]
            }),
        )
        .await?;
    removed.map(|_| id).ok_or_else(comment_not_found)
}
