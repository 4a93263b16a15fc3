//! `feedback-boards.list` (team): every board of the team, ordered by `order`.

use sounding_domain::{
    access::{KeyHolder, Need},
    board::BoardView,
    ports::BoardStore,
};

use crate::error::AppResult;

pub async fn list_boards(boards: &dyn BoardStore, caller: &KeyHolder) -> AppResult<Vec<BoardView>> {
    caller.require(Need::Read)?;
    Ok(boards.boards(caller.team_id, false).await?)
}
