//! `feedback-boards.info` (team): one board; another team's board is not found.

use sounding_domain::{
    access::{KeyHolder, Need},
    board::BoardView,
    ports::BoardStore,
    BoardId, Entity,
};

use crate::error::{AppError, AppResult};

/// `feedback-boards.info {id}`: the board with its feedback count. Any key; 404 when the team
/// has no such board.
pub async fn board_info(
    boards: &dyn BoardStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<BoardView> {
    caller.require(Need::Read)?;
    let id = BoardId::parse_required("id", id)?;
    boards
        .board(caller.team_id, id)
        .await?
        .ok_or(AppError::not_found(Entity::Board))
}
