//! `public/feedback-boards.list`: the team's public boards (`meta.isPublic`), by `order`.

use sounding_domain::{access::Caller, board::BoardView, ports::BoardStore};

use crate::error::AppResult;

pub async fn list_public_boards(
    boards: &dyn BoardStore,
    caller: &Caller,
) -> AppResult<Vec<BoardView>> {
    Ok(boards.boards(caller.team_id(), true).await?)
}
