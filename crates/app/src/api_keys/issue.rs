//! `api-keys.create` (admin): a key for the calling key's user, acting with the caller's
//! effective role unless a lower one is asked (a higher one is 403). Shown once.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need, Role},
    api_key::{ApiKey, ApiKeySecret},
    ports::{AccessStore, Clock},
    team_admin::issued_key_role,
    text,
};

use crate::error::AppResult;

/// The body of `api-keys.create`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct IssueApiKey {
    /// `owner`, `admin` or `member`, at most the caller's own role; the caller's role when absent.
    pub role: Option<String>,
    /// Whether the new key may only read; `false` when absent.
    pub read_only: Option<bool>,
    /// A label shown in listings; trimmed, at most 255 characters; blank means none.
    pub name: Option<String>,
}

/// `api-keys.create`: a new key for the caller's user, with its secret (shown once).
/// Owners and admins only (403); a role above the caller's is 403 too.
pub async fn issue_api_key(
    access: &dyn AccessStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: IssueApiKey,
) -> AppResult<(ApiKey, ApiKeySecret)> {
    caller.require(Need::Admin(AdminArea::ApiKeys))?;
    let requested = input.role.as_deref().map(Role::parse).transpose()?;
    let name =
        text::optional("name", input.name.as_deref(), text::NAME_MAX)?.filter(|n| !n.is_empty());
    let role = issued_key_role(caller, requested)?;
    let (key, secret) = ApiKey::new(
        caller.team_id,
        caller.user_id,
        role,
        input.read_only.unwrap_or(false),
        name,
        clock.now(),
    );
    access.insert_api_key(&key).await?;
    Ok((key, secret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use crate::AppError;
    use sounding_domain::ports::MockAccessStore;

    #[tokio::test]
    async fn a_key_is_issued_for_the_callers_user_with_the_callers_role() {
        let caller = KeyHolder::sample(Role::Admin, false);
        let (team, user) = (caller.team_id, caller.user_id);
        let mut access = MockAccessStore::new();
        access
            .expect_insert_api_key()
            .withf(move |k| k.team_id == team && k.user_id == user && k.role == Role::Admin)
            .times(1)
            .returning(|_| Ok(()));
        let (key, secret) = issue_api_key(&access, &Fixed, &caller, IssueApiKey::default())
            .await
            .unwrap();
        assert_eq!(key.key_hash, secret.hash());
        assert!(!key.read_only);
    }

    #[tokio::test]
    async fn a_role_above_the_callers_is_refused_before_storage() {
        let mut access = MockAccessStore::new();
        access.expect_insert_api_key().never();
        let err = issue_api_key(
            &access,
            &Fixed,
            &KeyHolder::sample(Role::Admin, false),
            IssueApiKey {
                role: Some("owner".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::forbidden("The admin role cannot create a key with the owner role")
        );
    }
}
