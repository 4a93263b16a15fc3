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
    pub name: Option<String>,
    pub slug: Option<String>,
    pub description: Option<String>,
    pub order: Option<i64>,
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
