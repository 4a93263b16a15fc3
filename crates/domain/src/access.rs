//! Who is calling and what they may do: team users and their roles, API key holders,
//! subscribers, and the permission rules of decisions §5.

use crate::{
    error::{DomainError, DomainResult},
    ids::{ApiKeyId, SubscriberId, TeamId, UserId},
    subscriber::Subscriber,
    timestamp::Timestamp,
};

/// A team user's role. Ordered by power: `Member < Admin < Owner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Member,
    Admin,
    Owner,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Owner, Role::Admin, Role::Member];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }

    pub fn parse(raw: &str) -> DomainResult<Self> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == raw)
            .ok_or_else(|| DomainError::invalid("role must be one of owner, admin, member"))
    }
}

/// A person on the team. Their e-mail makes a subscriber with the same address a team member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamUser {
    pub id: UserId,
    pub team_id: TeamId,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub created_at: Timestamp,
}

impl TeamUser {
    /// The team-member rule (decisions §5): a subscriber is a team member when a user of
    /// their team has their e-mail. Stores answer it with the subscriber at authentication
    /// (`SubscriberStore::subscriber_session`); this is the rule they follow.
    pub fn makes_member(&self, subscriber: &Subscriber) -> bool {
        self.team_id == subscriber.team_id
            && subscriber
                .email
                .as_ref()
                .is_some_and(|e| e.as_str() == self.email)
    }
}

/// What an operation needs from a team caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `.list`, `.info`, `.count` and `.deliveries` operations.
    Read,
    /// Day-to-day changes any role may make: feedback, comments, subscribers.
    Write,
    /// Structure and administration: settings, users, keys, boards, roadmaps, stages, automation.
    Admin(AdminArea),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminArea {
    Settings,
    Users,
    ApiKeys,
    Boards,
    Roadmaps,
    Stages,
    Automation,
    FeedbackMerges,
}

impl AdminArea {
    fn noun(self) -> &'static str {
        match self {
            AdminArea::Settings => "team settings",
            AdminArea::Users => "team users",
            AdminArea::ApiKeys => "API keys",
            AdminArea::Boards => "boards",
            AdminArea::Roadmaps => "roadmaps",
            AdminArea::Stages => "stages",
            AdminArea::Automation => "automation",
            AdminArea::FeedbackMerges => "feedback merges",
        }
    }
}

/// A caller holding a team API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHolder {
    pub team_id: TeamId,
    pub key_id: ApiKeyId,
    pub user_id: UserId,
    /// The key's own role capped by its user's role: a key never outranks its user.
    pub role: Role,
    pub read_only: bool,
}

impl KeyHolder {
    pub fn require(&self, need: Need) -> DomainResult<()> {
        if self.read_only && need != Need::Read {
            return Err(DomainError::Forbidden(
                "This API key is read-only".to_owned(),
            ));
        }
        match need {
            Need::Admin(area) if self.role < Role::Admin => Err(DomainError::Forbidden(format!(
                "The {} role cannot manage {}",
                self.role.as_str(),
                area.noun()
            ))),
            _ => Ok(()),
        }
    }

    /// A key of a new team, user and key id, for unit tests of the rules and the use cases.
    #[cfg(any(test, feature = "mock"))]
    pub fn sample(role: Role, read_only: bool) -> Self {
        Self {
            team_id: TeamId::new(),
            key_id: ApiKeyId::new(),
            user_id: UserId::new(),
            role,
            read_only,
        }
    }
}

/// A caller holding a subscriber token.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberSession {
    pub subscriber: Subscriber,
    /// Whether a user of the team has the subscriber's e-mail (`TeamUser::makes_member`),
    /// as the store answered when this request was authenticated: a user added or removed
    /// counts from the next request on.
    pub is_team_member: bool,
}

/// An authenticated caller.
// Built once per request and passed by reference, so the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    Team(KeyHolder),
    Subscriber(SubscriberSession),
}

impl Caller {
    pub fn team_id(&self) -> TeamId {
        match self {
            Caller::Team(k) => k.team_id,
            Caller::Subscriber(s) => s.subscriber.team_id,
        }
    }

    /// The subscriber behind a subscriber token; `None` for the team.
    pub fn subscriber_id(&self) -> Option<SubscriberId> {
        match self {
            Caller::Team(_) => None,
            Caller::Subscriber(s) => Some(s.subscriber.id),
        }
    }

    /// The team-member rule (decisions §5): a caller with the team's API key, or a subscriber
    /// whose e-mail is that of a user of the team (resolved at authentication).
    pub fn is_team_member(&self) -> bool {
        match self {
            Caller::Team(_) => true,
            Caller::Subscriber(s) => s.is_team_member,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_cannot_administer() {
        let member = KeyHolder::sample(Role::Member, false);
        assert!(member.require(Need::Read).is_ok());
        assert!(member.require(Need::Write).is_ok());
        assert_eq!(
            member.require(Need::Admin(AdminArea::Boards)),
            Err(DomainError::Forbidden(
                "The member role cannot manage boards".into()
            ))
        );
        assert!(KeyHolder::sample(Role::Admin, false)
            .require(Need::Admin(AdminArea::Boards))
            .is_ok());
        assert!(KeyHolder::sample(Role::Owner, false)
            .require(Need::Admin(AdminArea::Settings))
            .is_ok());
    }

    #[test]
    fn read_only_keys_only_read() {
        let key = KeyHolder::sample(Role::Owner, true);
        assert!(key.require(Need::Read).is_ok());
        assert!(key.require(Need::Write).is_err());
        assert!(key.require(Need::Admin(AdminArea::Settings)).is_err());
    }

    #[test]
    fn roles_parse_and_order() {
        assert_eq!(Role::parse("admin").unwrap(), Role::Admin);
        assert!(Role::parse("root").is_err());
        assert!(Role::Member < Role::Admin && Role::Admin < Role::Owner);
    }
}
