//! Feedback board use cases: team administration and the public list.

mod create;
mod delete;
mod info;
mod list;
mod public_list;
mod update;

pub use create::create_board;
pub use delete::delete_board;
pub use info::board_info;
pub use list::list_boards;
pub use public_list::list_public_boards;
pub use update::update_board;

use serde_json::Value;
use sounding_domain::board::BoardFields;

/// The fields of `feedback-boards.create` and `.update` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct BoardInput {
    /// Display name; trimmed, at most 255 characters. Required to create; not blank on update.
    pub name: Option<String>,
    /// 1-100 characters of `a-z`, `0-9` and single `-`, unique in the team; derived from the
    /// name on create when absent.
    pub slug: Option<String>,
    /// Free text, at most 50,000 characters; empty on create when absent.
    pub description: Option<String>,
    /// Display position, 0 to 1,000,000; on create, after the last board when absent.
    pub order: Option<i64>,
    /// An object of `isPublic`, `allowPublicSubmissions`, `requireModeration` (booleans) and
    /// `color` (`#RRGGBB`); other keys are ignored, given keys merge into the board's.
    pub meta: Option<Value>,
}

impl BoardInput {
    fn fields(&self) -> BoardFields<'_> {
        BoardFields {
            name: self.name.as_deref(),
            slug: self.slug.as_deref(),
            description: self.description.as_deref(),
            order: self.order,
            meta: self.meta.as_ref(),
        }
    }
}

fn slug_taken(slug: &str) -> crate::AppError {
    crate::AppError::Domain(sounding_domain::DomainError::Conflict(format!(
        "A board with slug {slug} already exists"
    )))
}
