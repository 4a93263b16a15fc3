//! `feedback-boards.create` (admin): a board with a unique slug, appended after the others
//! unless an order is given.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    board::{slug_candidate, BoardView, NewBoard},
    ports::{BoardStore, Clock, Conflict, StoreError},
};

use super::{slug_taken, BoardInput};
use crate::error::{AppError, AppResult};

/// Derived slugs try `-2`, `-3`, … this many times before giving up.
const SLUG_ATTEMPTS: u32 = 50;

/// `feedback-boards.create`: a new board of the caller's team (no feedback yet). Owners and
/// admins only (403); a slug given and taken is 409; a derived one takes `-2`, `-3`, ….
///
/// ```
/// # use sounding_app::boards::{create_board, BoardInput};
/// # use sounding_app::teams::{create_team, NewTeam};
/// # use sounding_domain::{access::KeyHolder, ports::Clock, Timestamp};
/// # use sounding_store_memory::MemoryStore;
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
/// let named = |name: &str| BoardInput {
///     name: Some(name.into()),
///     ..Default::default()
/// };
/// let first = create_board(&store, &Now, &owner, named("Feature Requests!")).await.unwrap();
/// let second = create_board(&store, &Now, &owner, named("Feature requests")).await.unwrap();
/// assert_eq!(first.board.slug, "feature-requests");
/// assert_eq!(second.board.slug, "feature-requests-2");
/// assert_eq!((first.board.order, second.board.order), (1, 2));
/// # });
/// ```
pub async fn create_board(
    boards: &dyn BoardStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: BoardInput,
) -> AppResult<BoardView> {
    caller.require(Need::Admin(AdminArea::Boards))?;
    let new = NewBoard::new(input.fields())?;
    let team = caller.team_id;
    let order = match new.order {
        Some(order) => order,
        None => boards.next_board_order(team).await?,
    };
    let now = clock.now();

    if let Some(slug) = new.slug.clone() {
        let board = new.into_board(team, slug.clone(), order, now);
        return match boards.insert_board(&board).await {
            Ok(()) => Ok(BoardView {
                board,
                feedback_count: 0,
            }),
            Err(StoreError::Conflict(Conflict::BoardSlug)) => Err(slug_taken(&slug)),
            Err(e) => Err(e.into()),
        };
    }

    let base = new.base_slug();
    for attempt in 1..=SLUG_ATTEMPTS {
        let slug = slug_candidate(&base, attempt);
        if boards.board_slug_taken(team, &slug).await? {
            continue;
        }
        let board = new.clone().into_board(team, slug, order, now);
        match boards.insert_board(&board).await {
            Ok(()) => {
                return Ok(BoardView {
                    board,
                    feedback_count: 0,
                })
            }
            // Taken between the check and the insert: try the next candidate.
            Err(StoreError::Conflict(Conflict::BoardSlug)) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(AppError::invalid(
        "could not derive a free slug from the name; give one",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use sounding_domain::{access::Role, DomainError};
    use sounding_store_memory::MemoryStore;

    fn admin() -> KeyHolder {
        KeyHolder::sample(Role::Admin, false)
    }

    fn named(name: &str) -> BoardInput {
        BoardInput {
            name: Some(name.into()),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn derived_slugs_are_made_unique_and_orders_append() {
        let store = MemoryStore::new();
        let caller = admin();
        let a = create_board(&store, &Fixed, &caller, named("Ideas"))
            .await
            .unwrap();
        let b = create_board(&store, &Fixed, &caller, named("Ideas!"))
            .await
            .unwrap();
        assert_eq!((a.board.slug.as_str(), a.board.order), ("ideas", 1));
        assert_eq!((b.board.slug.as_str(), b.board.order), ("ideas-2", 2));
    }

    #[tokio::test]
    async fn an_explicit_taken_slug_is_a_conflict() {
        let store = MemoryStore::new();
        let caller = admin();
        create_board(&store, &Fixed, &caller, named("Ideas"))
            .await
            .unwrap();
        let input = BoardInput {
            slug: Some("ideas".into()),
            ..named("Other")
        };
        let err = create_board(&store, &Fixed, &caller, input)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            AppError::Domain(DomainError::Conflict(
                "A board with slug ideas already exists".into()
            ))
        );
    }

    #[tokio::test]
    async fn the_same_slug_is_free_in_another_team() {
        let store = MemoryStore::new();
        create_board(&store, &Fixed, &admin(), named("Ideas"))
            .await
            .unwrap();
        let other = create_board(&store, &Fixed, &admin(), named("Ideas"))
            .await
            .unwrap();
        assert_eq!(other.board.slug, "ideas");
    }
}
