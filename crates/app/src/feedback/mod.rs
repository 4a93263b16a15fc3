//! Feedback use cases: the team's operations (API key) and the public ones (subscriber token,
//! or either credential for reads), plus the rules they share.

mod create;
mod delete;
mod follow;
mod info;
mod list;
mod merge;
mod moderate;
mod update;

pub use create::{create_feedback, create_public_feedback, NewFeedbackInput, PublicFeedbackInput};
pub use delete::{delete_feedback, delete_public_feedback};
pub use follow::follow_feedback;
pub use info::{feedback_info, public_feedback_info, FeedbackLookup};
pub use list::{
    answer_lasts, list_feedback, list_public_feedback, FeedbackListInput, PublicFeedbackPage,
};
pub use merge::{count_feedback, merge_feedback, MergeInput, Merged};
pub use moderate::moderate_feedback;
pub use update::{update_feedback, update_public_feedback, FeedbackChanges};

use sounding_domain::{
    access::{Caller, KeyHolder, TeamUser},
    board::BoardView,
    event::{EventKind, NewEvent},
    feedback::{BoardRef, FeedbackReach, FeedbackView},
    ports::{
        AccessStore, BoardStore, Conflict, FeedbackStore, StoreError, SubscriberStore, TagStore,
    },
    subscriber::{Identify, Subscriber},
    tag::{self, TagRef},
    BoardId, Entity, FeedbackId, TagId, Timestamp,
};

use crate::{
    error::{AppError, AppResult},
    url_id::insert_with_fresh_url_id,
    wire::FeedbackJson,
};

pub(crate) fn feedback_not_found() -> AppError {
    AppError::not_found(Entity::Feedback)
}

/// The team's item, whatever its state.
pub(crate) async fn team_feedback(
    store: &(impl FeedbackStore + ?Sized),
    caller: &Caller,
    id: FeedbackId,
) -> AppResult<FeedbackView> {
    store
        .feedback(caller.team_id(), id)
        .await?
        .ok_or_else(feedback_not_found)
}

/// The item as public operations see it: published, and on a public board or none — or on a
/// private board for a team member. Anything else is not found, never revealed.
pub(crate) async fn readable_feedback(
    store: &(impl FeedbackStore + ?Sized),
    caller: &Caller,
    id: FeedbackId,
) -> AppResult<FeedbackView> {
    let view = team_feedback(store, caller, id).await?;
    ensure_readable(caller, view)
}

pub(crate) fn ensure_readable(caller: &Caller, view: FeedbackView) -> AppResult<FeedbackView> {
    ensure_reach(caller, view.reach())?;
    Ok(view)
}

/// `readable_feedback` for the operations that need only to know (a vote, a follow): one
/// small read instead of the item's view.
pub(crate) async fn ensure_feedback_readable(
    store: &(impl FeedbackStore + ?Sized),
    caller: &Caller,
    id: FeedbackId,
) -> AppResult<()> {
    let reach = store
        .feedback_reach(caller.team_id(), id)
        .await?
        .ok_or_else(feedback_not_found)?;
    ensure_reach(caller, reach)
}

pub(crate) fn ensure_reach(caller: &Caller, reach: FeedbackReach) -> AppResult<()> {
    if reach.is_publicly_readable() || (reach.is_for_members() && caller.is_team_member()) {
        Ok(())
    } else {
        Err(feedback_not_found())
    }
}

/// The board `raw` names in the team: 400 when malformed, 404 when it is not the team's.
pub(crate) async fn team_board(
    store: &(impl BoardStore + ?Sized),
    caller: &Caller,
    raw: &str,
) -> AppResult<BoardView> {
    let id = BoardId::parse("boardId", raw)?;
    store
        .board(caller.team_id(), id)
        .await?
        .ok_or(AppError::not_found(Entity::Board))
}

/// A board a subscriber may post to: it must exist in their team (a private one only for team
/// members; to others it does not exist) and accept public submissions.
pub(crate) async fn board_open_to(
    store: &(impl BoardStore + ?Sized),
    caller: &Caller,
    raw: &str,
) -> AppResult<BoardView> {
    let view = team_board(store, caller, raw).await?;
    if !view.board.meta.is_public && !caller.is_team_member() {
        return Err(AppError::not_found(Entity::Board));
    }
    if !view.board.meta.allow_public_submissions {
        return Err(AppError::forbidden(
            "This board does not accept public submissions",
        ));
    }
    Ok(view)
}

pub(crate) fn board_ref(view: &BoardView) -> BoardRef {
    BoardRef {
        id: view.board.id,
        name: view.board.name.clone(),
        slug: view.board.slug.clone(),
        is_public: view.board.meta.is_public,
    }
}

/// The subscriber a team caller writes as: the one with `identify`'s e-mail (created with
/// source `api` when new), or else the one standing for the key's user.
pub(crate) async fn team_author(
    store: &(impl AccessStore + SubscriberStore + ?Sized),
    caller: &KeyHolder,
    identify: Option<Identify>,
    now: Timestamp,
) -> AppResult<Subscriber> {
    if let Some(identify) = identify {
        return Ok(store.identify(caller.team_id, &identify, now).await?.0);
    }
    let user = key_user(store, caller).await?;
    // An existing subscriber keeps the name they chose.
    if let Some(found) = store
        .subscriber_by_email(caller.team_id, &user.email)
        .await?
    {
        return Ok(found);
    }
    let identify = Identify::new(Some(&user.email), Some(&user.name), None, None, Some("api"))?;
    Ok(store.identify(caller.team_id, &identify, now).await?.0)
}

/// The tags `ids` name, in display order: 404 `Tag not found` unless each is the team's.
pub(crate) async fn team_tags(
    store: &(impl TagStore + ?Sized),
    caller: &KeyHolder,
    ids: &[TagId],
) -> AppResult<Vec<TagRef>> {
    let all = store.tags(caller.team_id).await?;
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        let tag = all
            .iter()
            .find(|t| t.id == *id)
            .ok_or(AppError::not_found(Entity::Tag))?;
        found.push(tag.as_ref());
    }
    tag::sort_tags(&mut found);
    Ok(found)
}

/// The user the caller's key belongs to.
pub(crate) async fn key_user(
    store: &(impl AccessStore + ?Sized),
    caller: &KeyHolder,
) -> AppResult<TeamUser> {
    store
        .users(caller.team_id)
        .await?
        .into_iter()
        .find(|u| u.id == caller.user_id)
        .ok_or_else(|| crate::AuthError::Required.into())
}

/// An event about the item, its payload carrying the item as the API returns it.
pub(crate) fn feedback_event(
    kind: EventKind,
    view: &FeedbackView,
    now: Timestamp,
    extra: &[(&str, String)],
) -> NewEvent {
    let mut ids = vec![("feedbackId", view.feedback.id.to_string())];
    ids.extend(extra.iter().cloned());
    NewEvent::new(
        view.feedback.team_id,
        kind,
        now,
        &ids,
        FeedbackJson::from(view),
    )
}

/// Events of several kinds about the item, the item's shape made once for all of them.
pub(crate) fn feedback_events(
    kinds: &[EventKind],
    view: &FeedbackView,
    now: Timestamp,
) -> Vec<NewEvent> {
    let data = FeedbackJson::from(view);
    let ids = [("feedbackId", view.feedback.id.to_string())];
    kinds
        .iter()
        .map(|&kind| NewEvent::new(view.feedback.team_id, kind, now, &ids, &data))
        .collect()
}

/// Inserts a new item, drawing another `urlId` when the team already has the one drawn. The
/// events are built for the item as finally inserted.
pub(crate) async fn insert_new(
    store: &(impl FeedbackStore + ?Sized),
    view: FeedbackView,
    events: impl Fn(&FeedbackView) -> Vec<NewEvent>,
) -> AppResult<FeedbackView> {
    let tags: Vec<TagId> = view.tags.iter().map(|t| t.id).collect();
    let inserted = insert_with_fresh_url_id(Conflict::FeedbackUrlId, |url_id| {
        let mut view = view.clone();
        view.feedback.url_id = url_id;
        let (tags, events) = (&tags, events(&view));
        async move {
            store
                .insert_feedback(&view.feedback, tags, &events)
                .await
                .map(|()| view)
        }
    })
    .await;
    match inserted {
        // A tag deleted since it was checked.
        Err(StoreError::Conflict(Conflict::FeedbackTag)) => Err(AppError::not_found(Entity::Tag)),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests;
