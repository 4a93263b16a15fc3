//! `feedbacks.create`: by the team (API key; any status and priority, published at once) and
//! by a subscriber (`public/feedbacks.create`; `in_review`/`medium`, held for moderation when
//! the team or the board asks for it).

use serde_json::Value;
use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    board::BoardView,
    event::EventKind,
    feedback::{Feedback, FeedbackDraft, FeedbackStatus, FeedbackView, Priority},
    ports::{BoardStore, Clock, FeedbackStore, Store, TeamStore},
    subscriber::{Identify, Subscriber, SubscriberRef},
    tag::{self, TagRef},
    DomainError, Entity, FeedbackId, SubscriberId, Timestamp,
};

use super::{
    board_open_to, board_ref, feedback_event, insert_new, team_author, team_board, team_tags,
};
use crate::error::{AppError, AppResult};

/// The fields of team `feedbacks.create` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct NewFeedbackInput {
    pub title: Option<String>,
    pub text: Option<String>,
    pub status: Option<String>,
    pub priority: Option<String>,
    pub board_id: Option<String>,
    pub kind: Option<String>,
    pub meta: Option<Value>,
    /// The subscriber the item is created for, by id (one of the team's); exclusive with
    /// `creator_email`.
    pub creator_id: Option<String>,
    /// The subscriber the item is created for, found or created; the key's user when neither
    /// this nor `creator_id` is given.
    pub creator_email: Option<String>,
    pub creator_name: Option<String>,
    /// Tags of the team the item carries from the start.
    pub tag_ids: Option<Vec<String>>,
}

/// The fields of `public/feedbacks.create`.
#[derive(Debug, Clone, Default)]
pub struct PublicFeedbackInput {
    pub title: Option<String>,
    pub text: Option<String>,
    pub board_id: Option<String>,
    pub kind: Option<String>,
    pub meta: Option<Value>,
}

pub async fn create_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: NewFeedbackInput,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let draft = FeedbackDraft::new(
        input.title.as_deref(),
        input.text.as_deref(),
        input.kind.as_deref(),
        input.meta.as_ref(),
    )?;
    let status = parse_given(input.status.as_deref(), FeedbackStatus::parse)?
        .unwrap_or(FeedbackStatus::InReview);
    let priority =
        parse_given(input.priority.as_deref(), Priority::parse)?.unwrap_or(Priority::Medium);
    let creator_id = input
        .creator_id
        .as_deref()
        .map(|raw| SubscriberId::parse("creatorId", raw))
        .transpose()?;
    if creator_id.is_some() && (input.creator_email.is_some() || input.creator_name.is_some()) {
        return Err(DomainError::invalid(
            "creatorId names an existing subscriber: give it without creatorEmail and creatorName",
        )
        .into());
    }
    let creator = match input.creator_email.as_deref() {
        Some(email) => Some(Identify::new(
            Some(email),
            input.creator_name.as_deref(),
            None,
            None,
            Some("api"),
        )?),
        None => None,
    };
    let tag_ids = parse_given(input.tag_ids.as_deref(), tag::parse_tag_ids)?.unwrap_or_default();
    let as_team = Caller::Team(caller.clone());
    let board = match input.board_id.as_deref() {
        Some(raw) => Some(team_board(store, &as_team, raw).await?),
        None => None,
    };
    let tags = team_tags(store, caller, &tag_ids).await?;
    let now = clock.now();
    let creator = match creator_id {
        Some(id) => store
            .subscriber(caller.team_id, id)
            .await?
            .ok_or(AppError::not_found(Entity::Subscriber))?,
        None => team_author(store, caller, creator, now).await?,
    };
    let view = new_view(draft, board.as_ref(), &creator, status, priority, tags, now);
    insert_new(store, view, |v| {
        vec![feedback_event(EventKind::NewFeedback, v, now, &[])]
    })
    .await
}

pub async fn create_public_feedback(
    store: &(impl TeamStore + BoardStore + FeedbackStore + ?Sized),
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: PublicFeedbackInput,
) -> AppResult<FeedbackView> {
    let draft = FeedbackDraft::new(
        input.title.as_deref(),
        input.text.as_deref(),
        input.kind.as_deref(),
        input.meta.as_ref(),
    )?;
    let caller = Caller::Subscriber(session.clone());
    let board = match input.board_id.as_deref() {
        Some(raw) => Some(board_open_to(store, &caller, raw).await?),
        None => None,
    };
    let team = store
        .team(caller.team_id())
        .await?
        .ok_or(AppError::not_found(Entity::Team))?;
    let moderated = team.public_board_moderation
        || board
            .as_ref()
            .is_some_and(|b| b.board.meta.require_moderation);

    let now = clock.now();
    let mut view = new_view(
        draft,
        board.as_ref(),
        &session.subscriber,
        FeedbackStatus::InReview,
        Priority::Medium,
        Vec::new(),
        now,
    );
    if moderated {
        view.feedback.published_at = None;
    }
    insert_new(store, view, |v| {
        vec![
            feedback_event(EventKind::NewFeedback, v, now, &[]),
            feedback_event(EventKind::FeedbacksCreate, v, now, &[]),
        ]
    })
    .await
}

/// A new item of the creator's team, published at `now`, before `insert_new` draws its `urlId`:
/// no votes, no comments, never edited.
fn new_view(
    draft: FeedbackDraft,
    board: Option<&BoardView>,
    creator: &Subscriber,
    status: FeedbackStatus,
    priority: Priority,
    tags: Vec<TagRef>,
    now: Timestamp,
) -> FeedbackView {
    let feedback = Feedback {
        id: FeedbackId::new(),
        team_id: creator.team_id,
        board_id: board.map(|b| b.board.id),
        url_id: String::new(),
        title: draft.title,
        text: draft.text,
        status,
        priority,
        kind: draft.kind,
        creator_id: creator.id,
        meta: draft.meta,
        published_at: Some(now),
        archived_at: None,
        created_at: now,
        updated_at: now,
        last_modified_by_id: None,
    };
    FeedbackView {
        feedback,
        board: board.map(board_ref),
        creator: Some(SubscriberRef::from(creator)),
        last_modified_by: None,
        vote_count: 0,
        comment_count: 0,
        tags,
    }
}
