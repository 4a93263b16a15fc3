//! Team administration rules (issue 6): who may add, re-role and remove team users, which
//! API keys a caller may issue, and the subscriber list, edit and erase of the team API.

use serde_json::Value;

use crate::{
    access::{KeyHolder, Role, TeamUser},
    error::{DomainError, DomainResult},
    ids::{TeamId, UserId},
    meta::{self, Meta},
    page::PageRequest,
    subscriber::{Attributes, Email, Subscriber},
    text,
    timestamp::Timestamp,
};

/// The name a deleted subscriber's comments and votes are shown with.
pub const DELETED_SUBSCRIBER_NAME: &str = "Deleted subscriber";

/// A `last_used_at` is written at most this often per key, so reads do not become writes.
pub const KEY_USE_RESOLUTION_SECONDS: i64 = 60;

/// Refused when a change would leave the team without an owner.
pub const LAST_OWNER_MESSAGE: &str = "The team must keep at least one owner";

/// The last-owner rule: whether giving `user` the role `after` (`None`: removing them) would
/// leave the team, whose owners are `owners`, without one. Both stores check it on the owners
/// as read (and locked) in the change's transaction, and refuse with `Conflict::LastOwner`.
pub fn would_leave_no_owner<T: PartialEq>(owners: &[T], user: &T, after: Option<Role>) -> bool {
    after != Some(Role::Owner) && owners.len() == 1 && owners[0] == *user
}

/// How `subscribers.list` orders; each with a fixed direction, ties broken by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubscriberSort {
    /// Newest first (the default).
    #[default]
    CreatedAt,
    /// Most recently changed first.
    LastUpdated,
    /// A to Z, case-insensitively.
    Name,
    /// A to Z.
    Email,
    /// Highest `meta.mmr` first; subscribers without one last.
    Mmr,
}

impl SubscriberSort {
    /// Every order `sortBy` accepts.
    pub const ALL: [SubscriberSort; 5] = [
        SubscriberSort::CreatedAt,
        SubscriberSort::LastUpdated,
        SubscriberSort::Name,
        SubscriberSort::Email,
        SubscriberSort::Mmr,
    ];

    /// The `sortBy` value: `createdAt`, `lastUpdated`, `name`, `email` or `mmr`.
    pub fn as_str(self) -> &'static str {
        match self {
            SubscriberSort::CreatedAt => "createdAt",
            SubscriberSort::LastUpdated => "lastUpdated",
            SubscriberSort::Name => "name",
            SubscriberSort::Email => "email",
            SubscriberSort::Mmr => "mmr",
        }
    }

    /// Reads `sortBy`: [`SubscriberSort::CreatedAt`] when absent; an unknown value is invalid.
    pub fn parse(raw: Option<&str>) -> DomainResult<Self> {
        match raw {
            None => Ok(Self::default()),
            Some(raw) => Self::ALL
                .into_iter()
                .find(|s| s.as_str() == raw)
                .ok_or_else(|| {
                    DomainError::invalid(
                        "sortBy must be one of createdAt, lastUpdated, name, email, mmr",
                    )
                }),
        }
    }
}

/// A validated `subscribers.list` request. Deleted subscribers are never listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberQuery {
    /// Lowercased; matched as a substring of the name (case-insensitively) or the e-mail.
    pub search: Option<String>,
    /// The order, each with its fixed direction.
    pub sort: SubscriberSort,
    /// The slice of the ordered list to return.
    pub page: PageRequest,
}

impl SubscriberQuery {
    /// Validates `subscribers.list`: a search of at most 255 characters (a blank one is no
    /// search) and a known `sortBy`.
    pub fn new(
        search: Option<&str>,
        sort_by: Option<&str>,
        page: PageRequest,
    ) -> DomainResult<Self> {
        let search = text::optional("search", search, text::NAME_MAX)?
            .map(|s| s.to_lowercase())
            .filter(|s| !s.is_empty());
        Ok(Self {
            search,
            sort: SubscriberSort::parse(sort_by)?,
            page,
        })
    }

    /// Whether `s` matches the search (the in-memory store's filter; SQL does the same).
    pub fn matches(&self, s: &Subscriber) -> bool {
        match &self.search {
            None => true,
            Some(term) => {
                s.name.to_lowercase().contains(term.as_str())
                    || s.email
                        .as_ref()
                        .is_some_and(|e| e.as_str().contains(term.as_str()))
            }
        }
    }
}

/// A validated `subscribers.update`: the name replaced, meta merged as `identify` does.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberPatch {
    /// A new name: trimmed, 1–255 characters.
    pub name: Option<String>,
    /// Keys to merge into the stored meta; a `null` value removes its key.
    pub meta: Option<Meta>,
}

impl SubscriberPatch {
    /// Validates `subscribers.update`: a name, when given, may not be blank; `meta` must be
    /// an object within the size and depth limits (`null` is no change).
    pub fn new(name: Option<&str>, meta: Option<&Value>) -> DomainResult<Self> {
        let name = match name {
            None => None,
            Some(_) => Some(text::required("name", name, text::NAME_MAX)?),
        };
        Ok(Self {
            name,
            meta: meta::validate_optional("meta", meta)?,
        })
    }
}

impl Subscriber {
    /// `subscribers.update`: the name replaced, meta merged key by key (a null removes a key),
    /// the typed attributes extracted again. Refused, with the subscriber unchanged, when the
    /// merged meta would pass 16 KiB.
    pub fn apply_patch(&mut self, patch: &SubscriberPatch, now: Timestamp) -> DomainResult<()> {
        let (name_before, meta_before) = (self.name.clone(), self.meta.clone());
        if let Some(meta) = &patch.meta {
            meta::merge_bounded("meta", &mut self.meta, meta)?;
            self.attributes = Attributes::extract(&self.meta);
        }
        if let Some(name) = &patch.name {
            self.name = name.clone();
        }
        // `lastUpdated` is when the data last changed: a patch that changes nothing leaves it.
        if self.name != name_before || self.meta != meta_before {
            self.last_updated = now;
        }
        Ok(())
    }

    /// `subscribers.delete`: personal data erased, every token refused from now on. The row
    /// stays so comments and votes keep their author.
    pub fn erase(&mut self, now: Timestamp) {
        self.name = DELETED_SUBSCRIBER_NAME.to_owned();
        self.email = None;
        self.meta = Meta::new();
        self.attributes = Attributes::default();
        self.avatar_url = None;
        self.token_version += 1;
        self.last_updated = now;
    }
}

/// A validated `users.create`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewUser {
    /// The user's address: a subscriber with it is a team member.
    pub email: Email,
    /// Trimmed, 1–255 characters.
    pub name: String,
    /// The role to give; only an owner may give `owner` ([`may_create_user`]).
    pub role: Role,
}

impl NewUser {
    /// Validates `users.create`: `email`, `name` and `role` are all required.
    pub fn new(email: Option<&str>, name: Option<&str>, role: Option<&str>) -> DomainResult<Self> {
        let email = Email::parse(email.unwrap_or_default())?;
        let name = text::required("name", name, text::NAME_MAX)?;
        let role = Role::parse(role.ok_or_else(|| DomainError::invalid("role is required"))?)?;
        Ok(Self { email, name, role })
    }

    /// The new user of `team_id`, added at `now`.
    pub fn into_user(self, team_id: TeamId, now: Timestamp) -> TeamUser {
        TeamUser {
            id: UserId::new(),
            team_id,
            email: self.email.as_str().to_owned(),
            name: self.name,
            role: self.role,
            created_at: now,
        }
    }
}

fn owners_only(what: &str) -> DomainError {
    DomainError::Forbidden(format!("Only an owner can {what}"))
}

/// Whether `caller` may give a new user `role`: only an owner makes owners.
///
/// ```
/// use sounding_domain::access::{KeyHolder, Role};
/// use sounding_domain::team_admin::{issued_key_role, may_create_user};
/// use sounding_domain::{ApiKeyId, TeamId, UserId};
///
/// let admin = KeyHolder {
///     team_id: TeamId::new(),
///     key_id: ApiKeyId::new(),
///     user_id: UserId::new(),
///     role: Role::Admin,
///     read_only: false,
/// };
/// assert!(may_create_user(&admin, Role::Admin).is_ok());
/// assert!(may_create_user(&admin, Role::Owner).is_err());
/// // Keys an admin issues act as admin at most.
/// assert_eq!(issued_key_role(&admin, None), Ok(Role::Admin));
/// assert!(issued_key_role(&admin, Some(Role::Owner)).is_err());
/// ```
pub fn may_create_user(caller: &KeyHolder, role: Role) -> DomainResult<()> {
    if role == Role::Owner && caller.role < Role::Owner {
        return Err(owners_only("create an owner"));
    }
    Ok(())
}

/// Whether `caller` may move `target` to `role`: only an owner changes an owner or promotes
/// to owner. (The last-owner rule is the store's, checked atomically.)
pub fn may_change_role(caller: &KeyHolder, target: &TeamUser, role: Role) -> DomainResult<()> {
    if caller.role < Role::Owner && (target.role == Role::Owner || role == Role::Owner) {
        return Err(owners_only("change an owner or make one"));
    }
    Ok(())
}

/// Whether `caller` may remove team users at all: owners only.
pub fn may_delete_user(caller: &KeyHolder) -> DomainResult<()> {
    if caller.role < Role::Owner {
        return Err(owners_only("delete team users"));
    }
    Ok(())
}

/// The role a key issued by `caller` acts with: the caller's own by default, never above it.
pub fn issued_key_role(caller: &KeyHolder, requested: Option<Role>) -> DomainResult<Role> {
    match requested {
        None => Ok(caller.role),
        Some(role) if role <= caller.role => Ok(role),
        Some(role) => Err(DomainError::Forbidden(format!(
            "The {} role cannot create a key with the {} role",
            caller.role.as_str(),
            role.as_str()
        ))),
    }
}

/// Whether a key last used at `last_used` should record a use at `now`.
pub fn key_use_due(last_used: Option<Timestamp>, now: Timestamp) -> bool {
    match last_used {
        None => true,
        Some(at) => at.plus_seconds(KEY_USE_RESOLUTION_SECONDS) <= now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subscriber::Identify;
    use serde_json::json;

    fn user(role: Role) -> TeamUser {
        NewUser::new(Some("u@x.io"), Some("U"), Some(role.as_str()))
            .unwrap()
            .into_user(TeamId::new(), Timestamp::from_unix_seconds(0).unwrap())
    }

    #[test]
    fn sort_parses_and_defaults() {
        assert_eq!(
            SubscriberSort::parse(None).unwrap(),
            SubscriberSort::CreatedAt
        );
        for s in SubscriberSort::ALL {
            assert_eq!(SubscriberSort::parse(Some(s.as_str())).unwrap(), s);
        }
        assert!(SubscriberSort::parse(Some("votes")).is_err());
    }

    #[test]
    fn patch_merges_meta_and_keeps_attributes_in_step() {
        let now = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        let input = Identify::new(
            Some("a@x.io"),
            None,
            Some(&json!({"mmr": 5, "plan": "free"})),
            None,
            None,
        )
        .unwrap();
        let mut s = Subscriber::identified(TeamId::new(), &input, now);
        let patch =
            SubscriberPatch::new(Some("Ann"), Some(&json!({"mmr": 10, "plan": null}))).unwrap();
        s.apply_patch(&patch, now.plus_seconds(1)).unwrap();
        assert_eq!(s.name, "Ann");
        assert_eq!(Value::Object(s.meta.clone()), json!({"mmr": 10}));
        assert_eq!(s.attributes.mmr, Some(10.0));
        assert_eq!(s.attributes.plan, None);
        assert!(SubscriberPatch::new(Some("  "), None).is_err());
        assert_eq!(s.last_updated, now.plus_seconds(1));

        // The same values again change nothing, so the time of the last change stays.
        s.apply_patch(&patch, now.plus_seconds(2)).unwrap();
        assert_eq!(s.last_updated, now.plus_seconds(1));
    }

    #[test]
    fn erase_clears_personal_data_and_bumps_the_token_version() {
        let now = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        let input = Identify::new(
            Some("a@x.io"),
            Some("Ann"),
            Some(&json!({"plan": "pro"})),
            Some("https://x.io/a.png"),
            None,
        )
        .unwrap();
        let mut s = Subscriber::identified(TeamId::new(), &input, now);
        s.erase(now);
        assert_eq!(s.name, DELETED_SUBSCRIBER_NAME);
        assert_eq!((s.email, s.avatar_url, s.meta.len()), (None, None, 0));
        assert_eq!(s.attributes, Attributes::default());
        assert_eq!(s.token_version, 1);
    }

    #[test]
    fn only_owners_make_or_change_owners() {
        let admin = KeyHolder::sample(Role::Admin, false);
        let owner = KeyHolder::sample(Role::Owner, false);
        assert!(may_create_user(&admin, Role::Admin).is_ok());
        assert!(may_create_user(&admin, Role::Owner).is_err());
        assert!(may_create_user(&owner, Role::Owner).is_ok());
        assert!(may_change_role(&admin, &user(Role::Member), Role::Admin).is_ok());
        assert!(may_change_role(&admin, &user(Role::Member), Role::Owner).is_err());
        assert!(may_change_role(&admin, &user(Role::Owner), Role::Member).is_err());
        assert!(may_change_role(&owner, &user(Role::Owner), Role::Member).is_ok());
        assert!(may_delete_user(&admin).is_err());
        assert!(may_delete_user(&owner).is_ok());
    }

    #[test]
    fn issued_keys_never_outrank_their_issuer() {
        let admin = KeyHolder::sample(Role::Admin, false);
        assert_eq!(issued_key_role(&admin, None).unwrap(), Role::Admin);
        assert_eq!(
            issued_key_role(&admin, Some(Role::Member)).unwrap(),
            Role::Member
        );
        assert_eq!(
            issued_key_role(&admin, Some(Role::Owner)),
            Err(DomainError::Forbidden(
                "The admin role cannot create a key with the owner role".into()
            ))
        );
    }

    #[test]
    fn key_use_is_recorded_at_most_once_a_minute() {
        let t = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        assert!(key_use_due(None, t));
        assert!(!key_use_due(Some(t), t.plus_seconds(59)));
        assert!(key_use_due(Some(t), t.plus_seconds(60)));
    }

    #[test]
    fn new_users_need_every_field() {
        assert!(NewUser::new(None, Some("A"), Some("admin")).is_err());
        assert!(NewUser::new(Some("a@x.io"), None, Some("admin")).is_err());
        assert_eq!(
            NewUser::new(Some("a@x.io"), Some("A"), None),
            Err(DomainError::invalid("role is required"))
        );
        assert!(NewUser::new(Some("a@x.io"), Some("A"), Some("root")).is_err());
    }

    #[test]
    fn search_is_lowercased_and_matches_name_or_email() {
        let page = PageRequest::new(None, None, 20).unwrap();
        let q = SubscriberQuery::new(Some("ANN"), None, page).unwrap();
        let input = Identify::new(Some("x@y.io"), Some("Joanna"), None, None, None).unwrap();
        let s = Subscriber::identified(
            TeamId::new(),
            &input,
            Timestamp::from_unix_seconds(0).unwrap(),
        );
        assert!(q.matches(&s));
        assert!(!SubscriberQuery::new(Some("zzz"), None, page)
            .unwrap()
            .matches(&s));
        assert!(SubscriberQuery::new(Some("Y.IO"), None, page)
            .unwrap()
            .matches(&s));
    }
}
