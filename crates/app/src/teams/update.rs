//! `teams.update`: name and the two behaviour settings (admin role).

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::{Clock, TeamStore},
    team::{Team, TeamPatch},
    Entity,
};

use crate::error::AppResult;

/// The body of `teams.update`, as the client sends it; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct UpdateTeam {
    /// A new name: not blank, at most 255 characters after trimming.
    pub name: Option<String>,
    /// `allowAnonymousFeedback`: whether the team's key may create topics for anonymous people.
    pub allow_anonymous_feedback: Option<bool>,
    /// `publicBoardModeration`: whether new public feedback (and public topics on moderated
    /// stages) starts unpublished.
    pub public_board_moderation: Option<bool>,
    /// `portalSignInUrl`: the public portal's sign-in link; `Some(None)` (JSON `null`)
    /// removes it.
    pub portal_sign_in_url: Option<Option<String>>,
}

/// `teams.update`: the team after the change. Owners and admins only (403).
pub async fn update_team(
    teams: &dyn TeamStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: UpdateTeam,
) -> AppResult<Team> {
    caller.require(Need::Admin(AdminArea::Settings))?;
    let patch = TeamPatch::new(
        input.name.as_deref(),
        input.allow_anonymous_feedback,
        input.public_board_moderation,
        input.portal_sign_in_url.as_ref().map(|url| url.as_deref()),
    )?;
    let now = clock.now();
    let edited = teams
        .edit_team(
            caller.team_id,
            Box::new(move |team| {
                team.apply(patch, now);
                Ok(Vec::new())
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Team)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AppError;
    use sounding_domain::{
        access::Role,
        edit::Edited,
        ports::{MockClock, MockTeamStore},
        DomainError, Timestamp,
    };

    #[tokio::test]
    async fn a_member_cannot_change_settings_and_nothing_is_written() {
        let mut teams = MockTeamStore::new();
        teams.expect_edit_team().never();
        let err = update_team(
            &teams,
            &MockClock::new(),
            &KeyHolder::sample(Role::Member, false),
            UpdateTeam::default(),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, AppError::Domain(DomainError::Forbidden(_))));
    }

    #[tokio::test]
    async fn an_admin_changes_only_what_was_given() {
        let caller = KeyHolder::sample(Role::Admin, false);
        let created = Timestamp::from_unix_seconds(1).unwrap();
        let mut team = Team::new("Acme", "acme", created).unwrap();
        team.id = caller.team_id;
        let mut teams = MockTeamStore::new();
        // The store runs the edit on the team as stored.
        teams.expect_edit_team().times(1).returning(move |_, edit| {
            let mut stored = team.clone();
            assert!(edit(&mut stored).unwrap().is_empty(), "no events");
            Ok(Edited::Changed(stored))
        });
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .returning(|| Timestamp::from_unix_seconds(99).unwrap());
        let input = UpdateTeam {
            public_board_moderation: Some(true),
            ..Default::default()
        };
        let updated = update_team(&teams, &clock, &caller, input).await.unwrap();
        assert_eq!(
            updated.updated_at,
            Timestamp::from_unix_seconds(99).unwrap()
        );
        assert_eq!(updated.created_at, created);
        assert!(updated.public_board_moderation && !updated.allow_anonymous_feedback);
        assert_eq!(updated.name, "Acme");
    }
}
