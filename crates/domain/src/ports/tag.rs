//! The team's tags.

use crate::{
    edit::{Edit, Edited},
    ids::{TagId, TeamId},
    ports::StoreResult,
};
use async_trait::async_trait;

/// The team's tags. Names are unique per team ignoring case (`tag::name_key`).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TagStore: Send + Sync {
    /// Conflict `tag_name` (nothing written) when the team has a tag of that name in any case.
    async fn insert_tag(&self, tag: &crate::tag::Tag) -> StoreResult<()>;
    /// Every tag of the team, in `tag::sort_full` order.
    async fn tags(&self, team: TeamId) -> StoreResult<Vec<crate::tag::Tag>>;
    /// The team's tag; `None` when the team has none with this id.
    async fn tag(&self, team: TeamId, id: TagId) -> StoreResult<Option<crate::tag::Tag>>;
    /// Runs `edit` on the tag as stored, atomically (see `crate::edit`). Conflict `tag_name`
    /// (nothing written) when another tag of the team has the new name.
    async fn edit_tag(
        &self,
        team: TeamId,
        id: TagId,
        edit: Edit<crate::tag::Tag>,
    ) -> StoreResult<Edited<crate::tag::Tag>>;
    /// Removes the tag and takes it off every item; `false` when there was none.
    async fn delete_tag(&self, team: TeamId, id: crate::ids::TagId) -> StoreResult<bool>;
}
