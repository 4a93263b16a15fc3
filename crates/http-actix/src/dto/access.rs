//! Team administration shapes (issue 6): subscriber list and update parameters, team users,
//! and API keys (listed without the key; shown once on creation).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_app::{
    api_keys::IssueApiKey,
    subscribers::{ListSubscribers, UpdateSubscriber},
    users::NewUserInput,
};
use sounding_domain::{
    access::TeamUser,
    api_key::{ApiKey, ApiKeySecret},
    page::Paged,
    subscriber::Subscriber,
    ApiKeyId, Timestamp, UserId,
};
use utoipa::ToSchema;

use super::{common::Pagination, subscriber::SubscriberDto};
use crate::params::lenient;

/// `subscribers.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListSubscribersParams {
    /// A case-insensitive substring of the name or e-mail (`%` and `_` match themselves).
    pub search: Option<String>,
    /// `createdAt` (default, newest first), `lastUpdated` (newest first), `name` (A–Z),
    /// `email` (A–Z), `mmr` (highest first, none last).
    #[schema(
        example = "createdAt",
        pattern = r"^(createdAt|lastUpdated|name|email|mmr)$"
    )]
    pub sort_by: Option<String>,
    /// 1..=100, default 20; larger values are clamped to 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    /// 0 or more, default 0.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<ListSubscribersParams> for ListSubscribers {
    fn from(p: ListSubscribersParams) -> Self {
        Self {
            search: p.search,
            sort_by: p.sort_by,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `{data: [Subscriber], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SubscriberListResponse {
    pub data: Vec<SubscriberDto>,
    pub pagination: Pagination,
}

impl From<&Paged<Subscriber>> for SubscriberListResponse {
    fn from(page: &Paged<Subscriber>) -> Self {
        Self {
            data: page.items.iter().map(Into::into).collect(),
            pagination: Pagination::of(page),
        }
    }
}

/// `subscribers.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UpdateSubscriberParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// Not empty when given.
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// Merged key by key into the stored meta; a null value removes a key.
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
}

impl From<UpdateSubscriberParams> for UpdateSubscriber {
    fn from(p: UpdateSubscriberParams) -> Self {
        Self {
            id: p.id,
            name: p.name,
            meta: p.meta,
        }
    }
}

/// Operations naming one thing by `id`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct IdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: UserId,
    #[schema(example = "jane@example.com")]
    pub email: String,
    pub name: String,
    /// `owner`, `admin` or `member`.
    #[schema(example = "admin")]
    pub role: &'static str,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

impl From<&TeamUser> for UserDto {
    fn from(u: &TeamUser) -> Self {
        Self {
            id: u.id,
            email: u.email.clone(),
            name: u.name.clone(),
            role: u.role.as_str(),
            created_at: u.created_at,
        }
    }
}

/// `{data: User}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserResponse {
    pub data: UserDto,
}

/// `{data: [User]}`, owners first, then admins, then members, each by creation.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserListResponse {
    pub data: Vec<UserDto>,
}

/// A team role, as parameters name it (documentation only: the field stays a string so an
/// unknown role is a 400 naming it, from `Role::parse`).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "lowercase")]
pub enum RoleName {
    Owner,
    Admin,
    Member,
}

/// `users.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct CreateUserParams {
    /// At most 254 characters.
    #[schema(required = true, value_type = String, max_length = 254, example = "jane@example.com", pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$")]
    pub email: Option<String>,
    /// 1..=255 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// `owner` (owners only), `admin` or `member`.
    #[schema(required = true, value_type = RoleName, example = "member")]
    pub role: Option<String>,
}

impl From<CreateUserParams> for NewUserInput {
    fn from(p: CreateUserParams) -> Self {
        Self {
            email: p.email,
            name: p.name,
            role: p.role,
        }
    }
}

/// `users.update`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UpdateUserParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// `owner`, `admin` or `member`.
    #[schema(required = true, value_type = RoleName, example = "admin")]
    pub role: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: ApiKeyId,
    pub name: Option<String>,
    /// The key's first 6 characters, to recognise it.
    #[schema(example = "Ab3dE9")]
    pub prefix: String,
    /// The role the key was issued with; it acts with at most its user's current role.
    #[schema(example = "admin")]
    pub role: &'static str,
    pub read_only: bool,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    /// When the key was last used, to the minute (recorded at most once a minute).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_used_at: Option<Timestamp>,
}

impl From<&ApiKey> for ApiKeyDto {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id,
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            role: k.role.as_str(),
            read_only: k.read_only,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        }
    }
}

/// `{data: [ApiKey]}`, oldest first. Never the key itself.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiKeyListResponse {
    pub data: Vec<ApiKeyDto>,
}

/// `{data: {…ApiKey, key}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedApiKeyResponse {
    pub data: NewApiKeyDto,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewApiKeyDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: ApiKeyId,
    pub name: Option<String>,
    pub prefix: String,
    #[schema(example = "admin")]
    pub role: &'static str,
    pub read_only: bool,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_used_at: Option<Timestamp>,
    /// The 38-character key. Store it now: it is not shown again.
    pub key: String,
}

impl CreatedApiKeyResponse {
    pub fn new(k: &ApiKey, secret: &ApiKeySecret) -> Self {
        Self {
            data: NewApiKeyDto {
                id: k.id,
                name: k.name.clone(),
                prefix: k.prefix.clone(),
                role: k.role.as_str(),
                read_only: k.read_only,
                created_at: k.created_at,
                last_used_at: k.last_used_at,
                key: secret.expose().to_owned(),
            },
        }
    }
}

/// `api-keys.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateApiKeyParams {
    /// `owner`, `admin` or `member`; default and maximum: the calling key's effective role.
    #[schema(value_type = Option<RoleName>)]
    pub role: Option<String>,
    /// Default false.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub read_only: Option<bool>,
    #[schema(max_length = 255)]
    pub name: Option<String>,
}

impl From<CreateApiKeyParams> for IssueApiKey {
    fn from(p: CreateApiKeyParams) -> Self {
        Self {
            role: p.role,
            read_only: p.read_only,
            name: p.name,
        }
    }
}
