//! Topic use cases: the public `topics.create|info`, `topic-comments.*`, `topic-votes.*`,
//! `topics.subscribe|unsubscribe`, and the team's `topics.create|list|update|delete` and
//! `topic-comments.list|update|delete`.

mod admin;
mod comments;
mod create;
mod follow;
mod info;
mod votes;

pub use admin::{delete_topic, list_topics, update_topic, TopicChanges, TopicListInput};
pub use comments::{
    create_topic_comment, delete_team_topic_comment, list_team_topic_comments, list_topic_comments,
    update_team_topic_comment, TopicCommentChanges, TopicCommentInput, TopicCommentListInput,
    DEFAULT_COMMENTS_LIMIT,
};
pub use create::{create_team_topic, create_topic, NewTopicInput, TeamTopicInput};
pub use follow::follow_topic;
pub use info::topic_info;
pub use votes::{
    cast_topic_vote, cast_topic_vote_on_behalf, retract_topic_vote, retract_topic_vote_on_behalf,
    topic_vote_info,
};

use sounding_domain::{
    access::Caller,
    event::{EventKind, NewEvent},
    ports::TopicStore,
    topic::TopicView,
    topic_comment::ThreadScope,
    Entity, Timestamp, TopicId,
};

use crate::{
    error::{AppError, AppResult},
    wire::TopicJson,
};

pub(crate) fn topic_not_found() -> AppError {
    AppError::not_found(Entity::Topic)
}

/// Which topics public operations show this caller: published ones, and only those on public
/// stages unless the caller is a team member.
pub(crate) fn public_scope(caller: &Caller) -> ThreadScope {
    if caller.is_team_member() {
        ThreadScope::Member
    } else {
        ThreadScope::Public
    }
}

/// Whether public operations show the topic to this caller (`public_scope`).
pub(crate) fn visible_to(caller: &Caller, view: &TopicView) -> bool {
    public_scope(caller).includes(&view.topic, view.stage.is_private)
}

/// The topic as public operations see it; anything not visible is not found.
pub(crate) async fn visible_topic(
    store: &(impl TopicStore + ?Sized),
    caller: &Caller,
    id: TopicId,
) -> AppResult<TopicView> {
    let view = store
        .topic(caller.team_id(), id)
        .await?
        .ok_or_else(topic_not_found)?;
    if visible_to(caller, &view) {
        Ok(view)
    } else {
        Err(topic_not_found())
    }
}

pub(crate) fn topic_event(kind: EventKind, view: &TopicView, now: Timestamp) -> NewEvent {
    NewEvent::new(
        view.topic.team_id,
        kind,
        now,
        &[("topicId", view.topic.id.to_string())],
        TopicJson::from(view),
    )
}
