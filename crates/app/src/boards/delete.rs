//! `feedback-boards.delete` (admin).

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::BoardStore,
    BoardId, Entity,
};

use crate::error::{AppError, AppResult};

pub async fn delete_board(
    boards: &dyn BoardStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<BoardId> {
    caller.require(Need::Admin(AdminArea::Boards))?;
    let id = BoardId::parse("id", id.ok_or_else(|| AppError::invalid("id is required"))?)?;
    if boards.delete_board(caller.team_id, id).await? {
        Ok(id)
    } else {
        Err(AppError::not_found(Entity::Board))
    }
}
