//! `feedback-boards.delete` (admin). A board that still holds feedback is kept: deleting it
//! would either lose the feedback or make items on a private board public.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::{BoardStore, Conflict, StoreError},
    BoardId, DomainError, Entity,
};

use crate::error::{AppError, AppResult};

/// `feedback-boards.delete {id}`: deletes an empty board of the team and returns its id.
/// Owners and admins only (403); 404 when missing; 409 while it still holds feedback.
pub async fn delete_board(
    boards: &dyn BoardStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<BoardId> {
    caller.require(Need::Admin(AdminArea::Boards))?;
    let id = BoardId::parse_required("id", id)?;
    match boards.delete_board(caller.team_id, id).await {
        Ok(true) => Ok(id),
        Ok(false) => Err(AppError::not_found(Entity::Board)),
        Err(StoreError::Conflict(Conflict::BoardNotEmpty)) => Err(AppError::Domain(
            DomainError::Conflict("Board still holds feedback; move or delete it first".into()),
        )),
        Err(e) => Err(e.into()),
    }
}
