//! `tags.create|list|update|delete` (team API key): any role may manage tags, read-only keys
//! only list them. Names are unique per team ignoring case (409 naming the name).

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::{Clock, Conflict, StoreError, TagStore},
    tag::{self, NewTag, Tag, TagPatch},
    Entity, TagId,
};

use crate::error::{AppError, AppResult};

/// The fields of `tags.create` and `tags.update` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct TagInput {
    /// Required on create, not blank on update; trimmed, at most 50 characters, unique in the
    /// team ignoring case.
    pub name: Option<String>,
    /// `#RRGGBB`; `#3B82F6` on create when absent.
    pub color: Option<String>,
}

fn not_found() -> AppError {
    AppError::not_found(Entity::Tag)
}

/// A store conflict on the name as the 409 naming it.
fn named_conflict(error: StoreError, name: &str) -> AppError {
    match error {
        StoreError::Conflict(Conflict::TagName) => tag::name_taken(name).into(),
        other => other.into(),
    }
}

/// `tags.create`: the new tag. Any key but a read-only one (403); 409 when the team has a
/// tag of that name.
///
/// ```
/// # use sounding_app::tags::{create_tag, TagInput};
/// # use sounding_app::teams::{create_team, NewTeam};
/// # use sounding_app::AppError;
/// # use sounding_domain::{access::KeyHolder, ports::Clock, DomainError, Timestamp};
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
/// let input = || TagInput {
///     name: Some("Bug".into()),
///     color: None,
/// };
/// let reader = KeyHolder {
///     read_only: true,
///     ..owner.clone()
/// };
/// assert_eq!(
///     create_tag(&store, &Now, &reader, input()).await.unwrap_err(),
///     AppError::Domain(DomainError::Forbidden("This API key is read-only".into()))
/// );
/// let tag = create_tag(&store, &Now, &owner, input()).await.unwrap();
/// assert_eq!((tag.name.as_str(), tag.color.as_str()), ("Bug", "#3B82F6"));
/// # });
/// ```
pub async fn create_tag(
    tags: &dyn TagStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: TagInput,
) -> AppResult<Tag> {
    caller.require(Need::Write)?;
    let new = NewTag::new(input.name.as_deref(), input.color.as_deref())?;
    let tag = Tag::new(caller.team_id, new, clock.now());
    tags.insert_tag(&tag)
        .await
        .map_err(|e| named_conflict(e, &tag.name))?;
    Ok(tag)
}

/// Every tag of the team, by name ignoring case.
pub async fn list_tags(tags: &dyn TagStore, caller: &KeyHolder) -> AppResult<Vec<Tag>> {
    caller.require(Need::Read)?;
    Ok(tags.tags(caller.team_id).await?)
}

/// `tags.update {id, …}`: the tag after the change. Any key but a read-only one (403); 404
/// when the team has no such tag; 409 for a name another tag has.
pub async fn update_tag(
    tags: &dyn TagStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    input: TagInput,
) -> AppResult<Tag> {
    caller.require(Need::Write)?;
    let id = TagId::parse_required("id", id)?;
    let patch = TagPatch::new(input.name.as_deref(), input.color.as_deref())?;
    let now = clock.now();
    let name = patch.name.clone();
    let edited = tags
        .edit_tag(
            caller.team_id,
            id,
            Box::new(move |tag| {
                patch.apply(tag, now);
                Ok(Vec::new())
            }),
        )
        .await
        // Only a new name can clash.
        .map_err(|e| named_conflict(e, name.as_deref().unwrap_or_default()))?;
    Ok(edited.into_result(Entity::Tag)?)
}

/// Removes the tag from the team and from every item carrying it.
pub async fn delete_tag(
    tags: &dyn TagStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<TagId> {
    caller.require(Need::Write)?;
    let id = TagId::parse_required("id", id)?;
    if tags.delete_tag(caller.team_id, id).await? {
        Ok(id)
    } else {
        Err(not_found())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use sounding_domain::{access::Role, ports::MockTagStore, DomainError};

    fn input(name: &str) -> TagInput {
        TagInput {
            name: Some(name.into()),
            color: None,
        }
    }

    #[tokio::test]
    async fn a_taken_name_is_409_naming_it() {
        let mut store = MockTagStore::new();
        store
            .expect_insert_tag()
            .returning(|_| Err(StoreError::Conflict(Conflict::TagName)));
        let err = create_tag(
            &store,
            &Fixed,
            &KeyHolder::sample(Role::Member, false),
            input("Bug"),
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::Domain(DomainError::Conflict(
                "A tag named Bug already exists".into()
            ))
        );
    }

    #[tokio::test]
    async fn read_only_keys_list_but_do_not_write() {
        let mut store = MockTagStore::new();
        store.expect_tags().returning(|_| Ok(Vec::new()));
        let key = KeyHolder::sample(Role::Owner, true);
        assert!(list_tags(&store, &key).await.unwrap().is_empty());
        let err = create_tag(&store, &Fixed, &key, input("Bug"))
            .await
            .unwrap_err();
        assert!(matches!(err, AppError::Domain(DomainError::Forbidden(_))));
        assert!(delete_tag(&store, &key, Some(&TagId::new().to_string()))
            .await
            .is_err());
    }

    #[tokio::test]
    async fn invalid_input_writes_nothing() {
        // No expectations: any store call would panic.
        let store = MockTagStore::new();
        let key = KeyHolder::sample(Role::Member, false);
        let err = create_tag(
            &store,
            &Fixed,
            &key,
            TagInput {
                name: Some("Bug".into()),
                color: Some("blue".into()),
            },
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::invalid("color must be a hex color like #3B82F6")
        );
        assert_eq!(
            update_tag(&store, &Fixed, &key, Some("x"), input("a"))
                .await
                .unwrap_err(),
            AppError::invalid("id must be a UUID")
        );
    }
}
