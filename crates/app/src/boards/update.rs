//! `feedback-boards.update` (admin): only the given fields change; meta keys merge.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    board::{BoardPatch, BoardView},
    ports::{BoardStore, Clock, Conflict, StoreError},
    BoardId, Entity,
};

use super::{slug_taken, BoardInput};
use crate::error::AppResult;

/// `feedback-boards.update {id, …}`: changes the given fields and returns the board. Owners
/// and admins only (403); 404 when the team has no such board; 409 for a taken slug.
pub async fn update_board(
    boards: &dyn BoardStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    input: BoardInput,
) -> AppResult<BoardView> {
    caller.require(Need::Admin(AdminArea::Boards))?;
    let id = BoardId::parse_required("id", id)?;
    let patch = BoardPatch::new(input.fields())?;
    let now = clock.now();
    let slug = patch.slug.clone();
    let edited = boards
        .edit_board(
            caller.team_id,
            id,
            Box::new(move |view| {
                patch.apply(&mut view.board, now);
                Ok(Vec::new())
            }),
        )
        .await;
    match edited {
        Ok(edited) => Ok(edited.into_result(Entity::Board)?),
        // Only a new slug can clash.
        Err(StoreError::Conflict(Conflict::BoardSlug)) => {
            Err(slug_taken(slug.as_deref().unwrap_or_default()))
        }
        Err(e) => Err(e.into()),
    }
}
