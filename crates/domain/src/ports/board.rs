//! Feedback boards.

use crate::{
    board::{Board, BoardView},
    edit::{Edit, Edited},
    ids::{BoardId, TeamId},
    ports::StoreResult,
};
use async_trait::async_trait;

/// The team's feedback boards.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait BoardStore: Send + Sync {
    /// Conflict `board_slug` when the slug is taken in the team.
    async fn insert_board(&self, board: &Board) -> StoreResult<()>;
    /// The team's boards ordered by `order` then creation; only `meta.isPublic` ones when asked.
    async fn boards(&self, team: TeamId, public_only: bool) -> StoreResult<Vec<BoardView>>;
    /// The team's board with its feedback count, public or not; `None` when the team has none
    /// with this id.
    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>>;
    /// Whether a board of the team has this slug (so a derived one can take `-2`, `-3`, …).
    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool>;
    /// One more than the highest `order` in the team (1 for the first board).
    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64>;
    /// Runs `edit` on the board as stored, atomically (see `crate::edit`); the view's
    /// `feedback_count` is read, never written. Conflict `board_slug` when the new slug is
    /// taken (nothing written).
    async fn edit_board(
        &self,
        team: TeamId,
        id: BoardId,
        edit: Edit<BoardView>,
    ) -> StoreResult<Edited<BoardView>>;
    /// Removes a board; `false` when there was none. Conflict `board_not_empty` (and nothing
    /// removed) while feedback is on it.
    async fn delete_board(&self, team: TeamId, id: BoardId) -> StoreResult<bool>;
}
