//! `feedback-boards.list` (team): every board of the team, ordered by `order`.

use sounding_domain::{
    access::{KeyHolder, Need},
    board::BoardView,
    ports::BoardStore,
};

use crate::error::AppResult;

/// `feedback-boards.list`: every board of the team, public or not, by `order`. Any key.
///
/// ```
/// # use sounding_app::boards::{create_board, list_boards, list_public_boards, BoardInput};
/// # use sounding_app::teams::{create_team, NewTeam};
/// # use sounding_domain::access::{Caller, KeyHolder};
/// # use sounding_domain::{ports::Clock, Timestamp};
/// # use sounding_store_memory::MemoryStore;
/// # use serde_json::json;
/// # struct Now;
/// # impl Clock for Now {
/// #     fn now(&self) -> Timestamp {
/// #         Timestamp::from_unix_seconds(1_800_000_000).unwrap()
/// #     }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let store = MemoryStore::new();
/// let created = create_team(&store, &Now, NewTeam::new("Acme", "acme")).await.unwrap();
/// let owner = KeyHolder {
///     team_id: created.key.team_id,
///     key_id: created.key.id,
///     user_id: created.key.user_id,
///     role: created.key.role,
///     read_only: created.key.read_only,
/// };
/// for (name, order, public) in [("Later", 3, true), ("First", 1, false), ("Second", 2, true)] {
///     let input = BoardInput {
///         name: Some(name.into()),
///         order: Some(order),
///         meta: Some(json!({ "isPublic": public })),
///         ..Default::default()
///     };
///     create_board(&store, &Now, &owner, input).await.unwrap();
/// }
/// let names: Vec<String> = list_boards(&store, &owner)
///     .await
///     .unwrap()
///     .into_iter()
///     .map(|view| view.board.name)
///     .collect();
/// assert_eq!(names, ["First", "Second", "Later"]);
/// // The public list leaves the private board out, in the same order.
/// let public: Vec<String> = list_public_boards(&store, &Caller::Team(owner))
///     .await
///     .unwrap()
///     .into_iter()
///     .map(|view| view.board.name)
///     .collect();
/// assert_eq!(public, ["Second", "Later"]);
/// # });
/// ```
pub async fn list_boards(boards: &dyn BoardStore, caller: &KeyHolder) -> AppResult<Vec<BoardView>> {
    caller.require(Need::Read)?;
    Ok(boards.boards(caller.team_id, false).await?)
}
