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
    board_open_to, board_ref, feedback_event, feedback_events, insert_new, team_author, team_board,
    team_tags,
};
use crate::error::{AppError, AppResult};

/// The fields of team `feedbacks.create` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct NewFeedbackInput {
    /// Required; trimmed, at most 255 characters.
    pub title: Option<String>,
    /// Plain text, at most 50,000 characters; empty when absent.
    pub text: Option<String>,
    /// `in_review` (the default), `in_progress`, `planned`, `completed` or `closed`.
    pub status: Option<String>,
    /// `low`, `medium` (the default), `high` or `urgent`.
    pub priority: Option<String>,
    /// `boardId`: a board of the team, public or private; no board when absent.
    pub board_id: Option<String>,
    /// `type`: the custom feedback type, at most 50 characters; blank means none.
    pub kind: Option<String>,
    /// Custom metadata: a JSON object of at most 16 KiB, nested at most 8 levels.
    pub meta: Option<Value>,
    /// The subscriber the item is created for, by id (one of the team's); exclusive with
    /// `creator_email`.
    pub creator_id: Option<String>,
    /// The subscriber the item is created for, found or created; the key's user when neither
    /// this nor `creator_id` is given.
    pub creator_email: Option<String>,
    /// The creator's name, only with `creator_email`: it replaces the subscriber's name; a new
    /// subscriber without one is named from the e-mail.
    pub creator_name: Option<String>,
    /// Tags of the team the item carries from the start.
    pub tag_ids: Option<Vec<String>>,
}

/// The fields of `public/feedbacks.create`.
#[derive(Debug, Clone, Default)]
pub struct PublicFeedbackInput {
    /// Required; trimmed, at most 255 characters.
    pub title: Option<String>,
    /// Plain text, at most 50,000 characters; empty when absent.
    pub text: Option<String>,
    /// `boardId`: a board of the subscriber's team open to public submissions (a private one
    /// only for team members); no board when absent.
    pub board_id: Option<String>,
    /// `type`: the custom feedback type, at most 50 characters; blank means none.
    pub kind: Option<String>,
    /// Custom metadata: a JSON object of at most 16 KiB, nested at most 8 levels.
    pub meta: Option<Value>,
}

/// Team `feedbacks.create`: a published item with the status and priority asked for; emits
/// `new_feedback`. Any key but a read-only one (403); 404 for another team's board, tag or
/// subscriber.
pub async fn create_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: NewFeedbackInput,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let draft = draft(&input.title, &input.text, &input.kind, &input.meta)?;
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

/// `public/feedbacks.create`: the subscriber's item, `in_review` and `medium`, unpublished
/// when the team's `publicBoardModeration` or the board's `requireModeration` is on; emits
/// `new_feedback` and `feedbacks.create`. 404 for a board the subscriber may not see, 403 for
/// one closed to public submissions.
pub async fn create_public_feedback(
    store: &(impl TeamStore + BoardStore + FeedbackStore + ?Sized),
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: PublicFeedbackInput,
) -> AppResult<FeedbackView> {
    let draft = draft(&input.title, &input.text, &input.kind, &input.meta)?;
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
        feedback_events(
            &[EventKind::NewFeedback, EventKind::FeedbacksCreate],
            v,
            now,
        )
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

/// The content both creations share, validated.
fn draft(
    title: &Option<String>,
    text: &Option<String>,
    kind: &Option<String>,
    meta: &Option<Value>,
) -> AppResult<FeedbackDraft> {
    Ok(FeedbackDraft::new(
        title.as_deref(),
        text.as_deref(),
        kind.as_deref(),
        meta.as_ref(),
    )?)
}
