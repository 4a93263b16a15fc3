//! `feedback-boards.update` (admin): only the given fields change; meta keys merge.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    board::{BoardPatch, BoardView},
    ports::{conflicts, BoardStore, Clock, StoreError},
    BoardId, Entity,
};

use super::{slug_taken, BoardInput};
use crate::error::{AppError, AppResult};

pub async fn update_board(
    boards: &dyn BoardStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    input: BoardInput,
) -> AppResult<BoardView> {
    caller.require(Need::Admin(AdminArea::Boards))?;
    let id = BoardId::parse_required("id", id)?;
    let patch = BoardPatch::new(
        input.name.as_deref(),
        input.slug.as_deref(),
        input.description.as_deref(),
        input.order,
        input.meta.as_ref(),
    )?;
    let mut view = boards
        .board(caller.team_id, id)
        .await?
        .ok_or(AppError::not_found(Entity::Board))?;
    patch.apply(&mut view.board, clock.now());
    match boards.update_board(&view.board).await {
        Ok(()) => Ok(view),
        Err(StoreError::Conflict(rule)) if rule == conflicts::BOARD_SLUG => {
            Err(slug_taken(&view.board.slug))
        }
        Err(e) => Err(e.into()),
    }
}
