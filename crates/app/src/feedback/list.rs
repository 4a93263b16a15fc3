//! `feedbacks.list`: the team's view (every board, unpublished too, archived on request) and
//! the public one (published, unarchived, on public boards or none). Sorted `newest`, `top` or
//! `trending`; filtered by status, board and a search over title and text.

use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    feedback::{
        search_term, CreatedRange, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus,
        FeedbackView, TRENDING_WINDOW_SECONDS,
    },
    page::{PageRequest, Paged},
    ports::{Clock, FeedbackStore},
    BoardId, FeedbackId, TagId,
};

use crate::error::AppResult;

/// Items per page when the caller does not say.
pub const DEFAULT_LIMIT: i64 = 20;

/// The parameters of `feedbacks.list` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct FeedbackListInput {
    /// `sortBy`: `newest` (the default), `top` (most votes) or `trending` (most votes and
    /// comments in the last 7 days).
    pub sort_by: Option<String>,
    /// Any of these statuses; every status when empty.
    pub statuses: Vec<String>,
    /// `boardId`: only items on this board.
    pub board_id: Option<String>,
    /// Only items carrying this tag.
    pub tag_id: Option<String>,
    /// Matched case-insensitively within the title or text; at most 255 characters.
    pub search: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Items to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
    /// Team only: include archived items.
    pub archived: Option<bool>,
    /// Only items created at or after this instant (or date).
    pub from: Option<String>,
    /// Only items created at or before this instant (or the end of this date).
    pub to: Option<String>,
}

/// A page of `public/feedbacks.list`.
#[derive(Debug, Clone, PartialEq)]
pub struct PublicFeedbackPage {
    /// The page of items.
    pub items: Paged<FeedbackView>,
    /// Under a subscriber token, which of the page's items the subscriber voted on; `None`
    /// for other callers.
    pub voted: Option<Vec<FeedbackId>>,
}

fn query(
    input: &FeedbackListInput,
    scope: FeedbackScope,
    clock: &dyn Clock,
) -> AppResult<FeedbackQuery> {
    Ok(FeedbackQuery {
        scope,
        sort: parse_given(input.sort_by.as_deref(), FeedbackSort::parse)?.unwrap_or_default(),
        statuses: input
            .statuses
            .iter()
            .map(|s| FeedbackStatus::parse(s))
            .collect::<Result<_, _>>()?,
        board_id: input
            .board_id
            .as_deref()
            .map(|raw| BoardId::parse("boardId", raw))
            .transpose()?,
        tag_id: input
            .tag_id
            .as_deref()
            .map(|raw| TagId::parse("tagId", raw))
            .transpose()?,
        search: search_term(input.search.as_deref())?,
        trending_since: clock.now().plus_seconds(-TRENDING_WINDOW_SECONDS),
        created: CreatedRange::parse(input.from.as_deref(), input.to.as_deref())?,
        page: PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?,
    })
}

/// Team `feedbacks.list`: a page of the team's items on every board, unpublished included,
/// archived only when `archived` is true. Any key; 400 for a malformed filter or page.
pub async fn list_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: FeedbackListInput,
) -> AppResult<Paged<FeedbackView>> {
    caller.require(Need::Read)?;
    let scope = FeedbackScope::Team {
        include_archived: input.archived.unwrap_or(false),
    };
    let query = query(&input, scope, clock)?;
    Ok(store.list_feedback(caller.team_id, &query).await?)
}

/// `public/feedbacks.list`: a page of the caller's team's published, unarchived items on
/// public boards or none, and under a subscriber token which of them they voted on. Any
/// caller; `archived` is not read.
pub async fn list_public_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &Caller,
    input: FeedbackListInput,
) -> AppResult<PublicFeedbackPage> {
    let query = query(&input, FeedbackScope::Public, clock)?;
    let items = store.list_feedback(caller.team_id(), &query).await?;
    let voted = match caller.subscriber_id() {
        Some(subscriber) => {
            let ids: Vec<FeedbackId> = items.items.iter().map(|v| v.feedback.id).collect();
            Some(
                store
                    .voted_among(caller.team_id(), subscriber, &ids)
                    .await?,
            )
        }
        None => None,
    };
    Ok(PublicFeedbackPage { items, voted })
}

/// Whether the answer to `input` changes only with the data, never with the clock, so it may
/// be remembered until the next commit (`AnswerStore`): every order but one
/// (`FeedbackSort::moves_with_clock`). An order that does not parse is refused, and a refusal
/// is not remembered either.
pub fn answer_lasts(input: &FeedbackListInput) -> bool {
    parse_given(input.sort_by.as_deref(), FeedbackSort::parse)
        .is_ok_and(|sort| !sort.unwrap_or_default().moves_with_clock())
}

#[cfg(test)]
mod answer_tests {
    use super::*;

    #[test]
    fn only_a_list_that_moves_with_the_clock_or_is_refused_is_not_lasting() {
        let sorted = |sort: Option<&str>| FeedbackListInput {
            sort_by: sort.map(str::to_owned),
            ..FeedbackListInput::default()
        };
        assert!(answer_lasts(&sorted(None)), "newest, by default");
        assert!(answer_lasts(&sorted(Some("newest"))));
        assert!(answer_lasts(&sorted(Some("top"))));
        assert!(!answer_lasts(&sorted(Some("trending"))));
        assert!(!answer_lasts(&sorted(Some("best"))));
    }
}
