//! Threaded topic comments: `public/topic-comments.create` (subscriber token),
//! `public/topic-comments.list` (either credential; one topic, or every topic of the team),
//! and the team's moderation: `topic-comments.list|update|delete`.

use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback_comment::{comment_text, Direction},
    page::{PageRequest, Paged},
    ports::{Clock, TopicStore},
    subscriber::SubscriberRef,
    topic_comment::{
        CommentSource, CommentThread, ThreadQuery, ThreadScope, TopicComment, TopicCommentView,
        TopicRef,
    },
    Entity, Timestamp, TopicCommentId, TopicId,
};

use super::{public_scope, topic_not_found, visible_topic};
use crate::{
    error::{AppError, AppResult},
    feedback_comments::comment_order,
    notifications::notify,
    wire::TopicCommentJson,
};

/// Top-level comments per page when the caller does not say (interface §8).
pub const DEFAULT_COMMENTS_LIMIT: i64 = 50;

/// The body of `public/topic-comments.create`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct TopicCommentInput {
    /// The topic.
    pub id: Option<String>,
    /// Required; 1 to 10,000 characters after trimming.
    pub text: Option<String>,
    /// `parentId`: the comment this replies to, of the same topic and not deleted; a top-level
    /// comment when absent.
    pub parent_id: Option<String>,
    /// `widget`, `api` (the default) or `email`.
    pub source: Option<String>,
}

/// Team `topic-comments.update` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct TopicCommentChanges {
    /// The comment.
    pub id: Option<String>,
    /// The new text, required: 1 to 10,000 characters after trimming.
    pub text: Option<String>,
}

/// The body of `topic-comments.list` (public and team), as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct TopicCommentListInput {
    /// One topic; every topic of the team when absent.
    pub id: Option<String>,
    /// `createdAt` (the default) or `updatedAt`.
    pub sort: Option<String>,
    /// `ASC` or `DESC` (newest first, the default), in any case.
    pub direction: Option<String>,
    /// Top-level comments per page, 1 to 100 (more is clamped to 100); 50 when absent.
    pub limit: Option<i64>,
    /// Top-level comments to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `public/topic-comments.create`: the subscriber's comment or reply, with its author; emits
/// `topic-comments.create` and notifies the topic's followers. 404 for a topic the subscriber
/// cannot see; 400 for a parent that is not a live comment of the topic.
pub async fn create_topic_comment(
    store: &dyn TopicStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: TopicCommentInput,
) -> AppResult<TopicCommentView> {
    let id = TopicId::parse_required("id", input.id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let source = parse_given(input.source.as_deref(), CommentSource::parse)?.unwrap_or_default();
    let parent_id = input
        .parent_id
        .as_deref()
        .map(|raw| TopicCommentId::parse("parentId", raw))
        .transpose()?;
    let caller = Caller::Subscriber(session.clone());
    let topic = visible_topic(store, &caller, id).await?;
    let comment_id = TopicCommentId::new();
    let root_id = match parent_id {
        None => comment_id,
        Some(parent_id) => {
            // A deleted comment (a tombstone) takes no new replies.
            let parent = store
                .topic_comment(caller.team_id(), parent_id)
                .await?
                .filter(|p| p.topic_id == id && !p.is_deleted())
                .ok_or_else(parent_refused)?;
            parent.root_id
        }
    };
    let now = clock.now();
    let view = TopicCommentView {
        comment: TopicComment {
            id: comment_id,
            team_id: caller.team_id(),
            topic_id: id,
            creator_id: session.subscriber.id,
            parent_id,
            root_id,
            text,
            source,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        },
        author: Some(SubscriberRef::from(&session.subscriber)),
        topic: TopicRef {
            id,
            title: topic.topic.title.clone(),
            url_id: topic.topic.url_id.clone(),
        },
    };
    let event = comment_event(EventKind::TopicCommentsCreate, &view, now).notifying(
        notify::topic_comment(&topic, comment_id.0, session.subscriber.id),
    );
    if store.insert_topic_comment(&view.comment, &[event]).await? {
        return Ok(view);
    }
    // Refused in the write: the topic went, or the parent was deleted since it was read.
    match (parent_id, store.topic(caller.team_id(), id).await?) {
        (Some(_), Some(_)) => Err(parent_refused()),
        _ => Err(topic_not_found()),
    }
}

fn parent_refused() -> AppError {
    AppError::invalid("parentId must be a comment of the same topic")
}

fn comment_not_found() -> AppError {
    AppError::not_found(Entity::Comment)
}

/// Team `topic-comments.list`: like the public list for a team member, every topic of the team
/// (unpublished, private stages), and a topic of another team or none is an empty page.
pub async fn list_team_topic_comments(
    store: &dyn TopicStore,
    caller: &KeyHolder,
    input: TopicCommentListInput,
) -> AppResult<(Paged<CommentThread>, bool)> {
    caller.require(Need::Read)?;
    let query = thread_query(&input, ThreadScope::Team)?;
    let threads = store.comment_threads(caller.team_id, &query).await?;
    Ok((threads, query.topic.is_none()))
}

fn thread_query(input: &TopicCommentListInput, scope: ThreadScope) -> AppResult<ThreadQuery> {
    let topic = input
        .id
        .as_deref()
        .map(|raw| TopicId::parse("id", raw))
        .transpose()?;
    let (sort, direction) = comment_order(
        input.sort.as_deref(),
        input.direction.as_deref(),
        Direction::Desc,
    )?;
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_COMMENTS_LIMIT)?;
    Ok(ThreadQuery {
        topic,
        scope,
        sort,
        direction,
        page,
    })
}

/// Team `topic-comments.update`: new text; `updatedAt` moves only on a real change. A deleted
/// comment (tombstone) is not found. No event.
pub async fn update_team_topic_comment(
    store: &dyn TopicStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: TopicCommentChanges,
) -> AppResult<TopicCommentView> {
    caller.require(Need::Write)?;
    let id = TopicCommentId::parse_required("id", input.id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let now = clock.now();
    let edited = store
        .edit_topic_comment(
            caller.team_id,
            id,
            Box::new(move |view| {
                if view.comment.is_deleted() {
                    return Err(sounding_domain::DomainError::NotFound(Entity::Comment));
                }
                view.comment.edit_text(text, now);
                Ok(Vec::new())
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Comment)?)
}

/// Team `topic-comments.delete`: the comment goes, or stays as a tombstone while replies
/// answer it (`TopicComment::removal`); the topic's count drops by one either way. Emits
/// `topic-comments.delete` with the comment as it was; nobody is notified.
pub async fn delete_team_topic_comment(
    store: &dyn TopicStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<TopicCommentId> {
    caller.require(Need::Write)?;
    let id = TopicCommentId::parse_required("id", id)?;
    let now = clock.now();
    let removed = store
        .delete_topic_comment(
            caller.team_id,
            id,
            now,
            Box::new(move |view| vec![comment_event(EventKind::TopicCommentsDelete, view, now)]),
        )
        .await?;
    removed.map(|_| id).ok_or_else(comment_not_found)
}

/// An event about a comment: exactly the ids of decisions §6 beside `event`, `teamId`,
/// `occurredAt` and `data`.
fn comment_event(kind: EventKind, view: &TopicCommentView, now: Timestamp) -> NewEvent {
    NewEvent::new(
        view.comment.team_id,
        kind,
        now,
        &[
            ("commentId", view.comment.id.to_string()),
            ("topicId", view.comment.topic_id.to_string()),
            ("subscriberId", view.comment.creator_id.to_string()),
        ],
        TopicCommentJson::from(view),
    )
}

/// A page of comment threads, and whether they span the team (then each names its topic).
/// A topic the caller cannot see has no comments to show: an empty page, like a topic
/// without comments.
pub async fn list_topic_comments(
    store: &dyn TopicStore,
    caller: &Caller,
    input: TopicCommentListInput,
) -> AppResult<(Paged<CommentThread>, bool)> {
    // The store applies the scope, so a topic the caller may not see is an empty page.
    let query = thread_query(&input, public_scope(caller))?;
    let threads = store.comment_threads(caller.team_id(), &query).await?;
    Ok((threads, query.topic.is_none()))
}
