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
    /// Reads and makes day-to-day changes ([`Need::Write`]); administers nothing.
    Member,
    /// A member who also administers the team ([`Need::Admin`]), but may neither make nor
    /// change owners, nor remove users.
    Admin,
    /// Everything, including making owners and removing users; a team keeps at least one.
    Owner,
}

impl Role {
    /// Every role, most powerful first.
    pub const ALL: [Role; 3] = [Role::Owner, Role::Admin, Role::Member];

    /// The wire name: `owner`, `admin` or `member`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }

    /// Reads a wire name, exactly as [`Role::as_str`] spells it; anything else is invalid.
    ///
    /// ```
    /// use sounding_domain::access::Role;
    ///
    /// assert_eq!(Role::parse("admin"), Ok(Role::Admin));
    /// assert!(Role::parse("Admin").is_err(), "names are case-sensitive");
    /// assert!(Role::parse("root").is_err());
    /// // Ordered by power, so a key's effective role is the lower of two.
    /// assert_eq!(Role::Owner.min(Role::Member), Role::Member);
    /// ```
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
    /// What the user's API keys point at.
    pub id: UserId,
    /// The one team the user belongs to.
    pub team_id: TeamId,
    /// Normalised (trimmed, lowercase); unique in the team.
    pub email: String,
    /// Shown in the team's user list.
    pub name: String,
    /// What the user may do; their keys act with at most this role.
    pub role: Role,
    /// When the user was added to the team.
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

/// What a [`Need::Admin`] operation manages; named in its 403 (`The member role cannot manage
/// boards`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminArea {
    /// `teams.update`: the team's name and its moderation and anonymity settings.
    Settings,
    /// Adding, re-roling and removing team users (listing them is a [`Need::Read`]).
    Users,
    /// Issuing, listing and deleting API keys.
    ApiKeys,
    /// Creating, changing and deleting feedback boards.
    Boards,
    /// Creating, changing and deleting roadmaps.
    Roadmaps,
    /// Creating, changing, moving and deleting roadmap stages.
    Stages,
    /// Subscribing, unsubscribing and redelivering webhooks (listing them is a [`Need::Read`]).
    Automation,
    /// `feedbacks.merge`: folding one feedback item into another.
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
    /// The key's team: every operation of the caller is scoped to it.
    pub team_id: TeamId,
    /// The key presented; its uses are recorded on it (`lastUsedAt`).
    pub key_id: ApiKeyId,
    /// The team user the key belongs to; keys it issues belong to them too.
    pub user_id: UserId,
    /// The key's own role capped by its user's role: a key never outranks its user.
    pub role: Role,
    /// Allows [`Need::Read`] operations only, whatever the role.
    pub read_only: bool,
}

impl KeyHolder {
    /// Whether the key may call an operation that needs `need`: `Forbidden` for a read-only
    /// key asked to change anything (`This API key is read-only`), and for a member asked to
    /// administer (`The member role cannot manage <area>`).
    ///
    /// ```
    /// use sounding_domain::access::{AdminArea, KeyHolder, Need, Role};
    /// use sounding_domain::{ApiKeyId, DomainError, TeamId, UserId};
    ///
    /// let key = |role, read_only| KeyHolder {
    ///     team_id: TeamId::new(),
    ///     key_id: ApiKeyId::new(),
    ///     user_id: UserId::new(),
    ///     role,
    ///     read_only,
    /// };
    /// let read_only_owner = key(Role::Owner, true);
    /// assert!(read_only_owner.require(Need::Read).is_ok());
    /// assert_eq!(
    ///     read_only_owner.require(Need::Write),
    ///     Err(DomainError::Forbidden("This API key is read-only".into()))
    /// );
    /// let member = key(Role::Member, false);
    /// assert!(member.require(Need::Write).is_ok());
    /// assert_eq!(
    ///     member.require(Need::Admin(AdminArea::ApiKeys)),
    ///     Err(DomainError::Forbidden("The member role cannot manage API keys".into()))
    /// );
    /// assert!(key(Role::Admin, false).require(Need::Admin(AdminArea::ApiKeys)).is_ok());
    /// ```
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
    /// The token's subscriber as stored when the request was authenticated.
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
    /// A team API key: acts for the team, within the key's role.
    Team(KeyHolder),
    /// A subscriber token (bearer or `publicAccessToken` cookie): acts as that end user.
    Subscriber(SubscriberSession),
    /// Someone without a credential reading the team's public portal: sees what any
    /// subscriber who is not a team member sees, and can change nothing.
    Visitor(TeamId),
}

impl Caller {
    /// The caller's team: whatever they name must be in it, or it is not found.
    pub fn team_id(&self) -> TeamId {
        match self {
            Caller::Team(k) => k.team_id,
            Caller::Subscriber(s) => s.subscriber.team_id,
            Caller::Visitor(team) => *team,
        }
    }

    /// The subscriber behind a subscriber token; `None` for the team and a visitor.
    pub fn subscriber_id(&self) -> Option<SubscriberId> {
        match self {
            Caller::Subscriber(s) => Some(s.subscriber.id),
            Caller::Team(_) | Caller::Visitor(_) => None,
        }
    }

    /// The team-member rule (decisions §5): a caller with the team's API key, or a subscriber
    /// whose e-mail is that of a user of the team (resolved at authentication).
    pub fn is_team_member(&self) -> bool {
        match self {
            Caller::Team(_) => true,
            Caller::Subscriber(s) => s.is_team_member,
            Caller::Visitor(_) => false,
        }
    }

    /// What of the caller the public reads go by (`Audience`).
    pub fn audience(&self) -> Audience {
        Audience {
            team_id: self.team_id(),
            team_member: self.is_team_member(),
            subscriber_id: self.subscriber_id(),
        }
    }
}

/// What of a caller a public read may go by: the team, whether the caller counts as a team
/// member (who also sees private comments, and the topics of private stages), and the
/// subscriber (whose own votes are marked). A read that goes by nothing else of its caller
/// gives two callers of one audience the same answer on the same data, which is what lets
/// an adapter keep one answer for both (the HTTP adapter's remembered lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Audience {
    /// The caller's team.
    pub team_id: TeamId,
    /// `Caller::is_team_member`.
    pub team_member: bool,
    /// `Caller::subscriber_id`.
    pub subscriber_id: Option<SubscriberId>,
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
