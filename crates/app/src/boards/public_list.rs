//! `public/feedback-boards.list`: the team's public boards (`meta.isPublic`), by `order`.

use sounding_domain::{access::Caller, board::BoardView, ports::BoardStore};

use crate::error::AppResult;

/// `public/feedback-boards.list`: the caller's team's boards with `meta.isPublic`, by
/// `order`, with their feedback counts. Any authenticated caller.
pub async fn list_public_boards(
    boards: &dyn BoardStore,
    caller: &Caller,
) -> AppResult<Vec<BoardView>> {
    Ok(boards.boards(caller.team_id(), true).await?)
}
