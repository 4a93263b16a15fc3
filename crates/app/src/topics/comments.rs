//! Threaded topic comments: `public/topic-comments.create` (subscriber token) and
//! `public/topic-comments.list` (either credential; one topic, or every topic of the team).

use sounding_domain::{
    access::{Caller, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback_comment::{comment_text, CommentSort, Direction},
    page::{PageRequest, Paged},
    ports::{Clock, Store},
    subscriber::SubscriberRef,
    topic_comment::{
        CommentSource, CommentThread, ThreadQuery, ThreadScope, TopicComment, TopicCommentView,
        TopicRef,
    },
    TopicCommentId, TopicId,
};

use super::{topic_not_found, visible_to, visible_topic};
use crate::{
    auth::is_team_member,
    error::{AppError, AppResult},
    notifications::notify,
    wire::{self, TopicCommentJson},
};

/// Top-level comments per page when the caller does not say (interface §8).
pub const DEFAULT_COMMENTS_LIMIT: i64 = 50;

#[derive(Debug, Clone, Default)]
pub struct TopicCommentInput {
    /// The topic.
    pub id: Option<String>,
    pub text: Option<String>,
    pub parent_id: Option<String>,
    pub source: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct TopicCommentListInput {
    /// One topic; every topic of the team when absent.
    pub id: Option<String>,
    pub sort: Option<String>,
    pub direction: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

pub async fn create_topic_comment(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: TopicCommentInput,
) -> AppResult<TopicCommentView> {
    let id = TopicId::parse_required("id", input.id.as_deref())?;
    let text = comment_text(input.text.as_deref())?;
    let source = input
        .source
        .as_deref()
        .map(CommentSource::parse)
        .transpose()?
        .unwrap_or_default();
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
            let parent = store
                .topic_comment(caller.team_id(), parent_id)
                .await?
                .filter(|p| p.topic_id == id)
                .ok_or_else(|| AppError::invalid("parentId must be a comment of the same topic"))?;
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
        },
        author: Some(SubscriberRef::from(&session.subscriber)),
        topic: TopicRef {
            id,
            title: topic.topic.title.clone(),
            url_id: topic.topic.url_id.clone(),
        },
    };
    // Exactly these ids (decisions §6), beside `event`, `teamId`, `occurredAt` and `data`.
    let event = NewEvent::new(
        caller.team_id(),
        EventKind::TopicCommentsCreate,
        now,
        &[
            ("commentId", comment_id.to_string()),
            ("topicId", id.to_string()),
            ("subscriberId", session.subscriber.id.to_string()),
        ],
        wire::to_value(&TopicCommentJson::from(&view)),
    )
    .notifying(notify::topic_comment(
        &topic,
        comment_id.0,
        session.subscriber.id,
    ));
    if store.insert_topic_comment(&view.comment, &[event]).await? {
        Ok(view)
    } else {
        Err(topic_not_found())
    }
}

/// A page of comment threads, and whether they span the team (then each names its topic).
/// A topic the caller cannot see has no comments to show: an empty page, like a topic
/// without comments.
pub async fn list_topic_comments(
    store: &dyn Store,
    caller: &Caller,
    input: TopicCommentListInput,
) -> AppResult<(Paged<CommentThread>, bool)> {
    let topic = input
        .id
        .as_deref()
        .map(|raw| TopicId::parse("id", raw))
        .transpose()?;
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
        .unwrap_or(Direction::Desc);
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_COMMENTS_LIMIT)?;
    let member = is_team_member(store, caller).await?;
    if let Some(id) = topic {
        let visible = match store.topic(caller.team_id(), id).await? {
            Some(view) => visible_to(store, caller, &view).await?,
            None => false,
        };
        if !visible {
            return Ok((
                Paged {
                    items: Vec::new(),
                    total: 0,
                    page,
                },
                false,
            ));
        }
    }
    let query = ThreadQuery {
        topic,
        scope: if member {
            ThreadScope::Team
        } else {
            ThreadScope::Public
        },
        sort,
        direction,
        page,
    };
    let threads = store.comment_threads(caller.team_id(), &query).await?;
    Ok((threads, topic.is_none()))
}
