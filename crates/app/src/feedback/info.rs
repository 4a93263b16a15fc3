//! `feedbacks.info`: one item by `id`/`feedbackId` or by `urlId`, exactly one of the two.
//! The team sees every item of its own; public callers only what `readable_feedback` allows.

use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    feedback::FeedbackView,
    ports::FeedbackStore,
    slug, FeedbackId,
};

use super::{ensure_readable, feedback_not_found, team_feedback};
use crate::error::{AppError, AppResult};

/// How the caller names the item; `id_field` is the name of the id parameter in messages.
#[derive(Debug, Clone, Default)]
pub struct FeedbackLookup {
    /// The item's UUID (`id` for the team, `feedbackId` in public); exclusive with `url_id`.
    pub id: Option<String>,
    /// `urlId`, or a whole url slug ending in it (`dark-mode-k3j9x0a2mq`); exclusive with `id`.
    pub url_id: Option<String>,
}

async fn find(
    store: &(impl FeedbackStore + ?Sized),
    caller: &Caller,
    lookup: &FeedbackLookup,
    id_field: &str,
) -> AppResult<FeedbackView> {
    match (lookup.id.as_deref(), lookup.url_id.as_deref()) {
        (Some(_), Some(_)) => Err(AppError::invalid(format!(
            "give {id_field} or urlId, not both"
        ))),
        (None, None) => Err(AppError::invalid(format!(
            "{id_field} or urlId is required"
        ))),
        (Some(raw), None) => {
            let id = FeedbackId::parse(id_field, raw)?;
            team_feedback(store, caller, id).await
        }
        (None, Some(raw)) => {
            // A whole url slug (`dark-mode-k3j9x0a2mq`) names its urlId too.
            let url_id = slug::url_id_from_slug(raw.trim()).ok_or_else(feedback_not_found)?;
            store
                .feedback_by_url_id(caller.team_id(), url_id)
                .await?
                .ok_or_else(feedback_not_found)
        }
    }
}

/// Team `feedbacks.info`: any item of the team, published, archived or not. Any key; 400
/// unless exactly one of `id` and `urlId` is given; 404 when the team has no such item.
pub async fn feedback_info(
    store: &dyn FeedbackStore,
    caller: &KeyHolder,
    lookup: FeedbackLookup,
) -> AppResult<FeedbackView> {
    caller.require(Need::Read)?;
    find(store, &Caller::Team(caller.clone()), &lookup, "id").await
}

/// The item, and under a subscriber token whether that subscriber follows it.
pub async fn public_feedback_info(
    store: &dyn FeedbackStore,
    caller: &Caller,
    lookup: FeedbackLookup,
) -> AppResult<(FeedbackView, Option<bool>)> {
    let view = find(store, caller, &lookup, "feedbackId").await?;
    let view = ensure_readable(caller, view)?;
    let following = match caller {
        Caller::Subscriber(session) => Some(
            store
                .is_following(
                    view.feedback.team_id,
                    view.feedback.id,
                    session.subscriber.id,
                )
                .await?,
        ),
        Caller::Team(_) | Caller::Visitor(_) => None,
    };
    Ok((view, following))
}
