//! Subscriber shapes: the subscriber object, and `subscriber.identify`'s parameters and reply.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_app::subscribers::{Identified, IdentifySubscriber};
use sounding_domain::{meta::Meta, subscriber::Subscriber, SubscriberId, Timestamp};
use utoipa::ToSchema;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriberDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: SubscriberId,
    pub name: String,
    /// Lowercase; null only for an anonymous topic creator who gave none.
    #[schema(example = "jane.doe@example.com")]
    pub email: Option<String>,
    /// `widget` or `api`.
    #[schema(example = "api")]
    pub source: &'static str,
    /// Custom attributes, as given (merged on each identify).
    #[schema(value_type = Object)]
    pub meta: Meta,
    pub avatar_url: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub last_updated: Timestamp,
}

impl From<&Subscriber> for SubscriberDto {
    fn from(s: &Subscriber) -> Self {
        Self {
            id: s.id,
            name: s.name.clone(),
            email: s.email.as_ref().map(|e| e.as_str().to_owned()),
            source: s.source.as_str(),
            meta: s.meta.clone(),
            avatar_url: s.avatar_url.clone(),
            created_at: s.created_at,
            last_updated: s.last_updated,
        }
    }
}

/// `{data: Subscriber}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SubscriberResponse {
    pub data: SubscriberDto,
}

impl From<&Subscriber> for SubscriberResponse {
    fn from(s: &Subscriber) -> Self {
        Self { data: s.into() }
    }
}

/// `public/subscriber.identify`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentifyParams {
    /// Matched case-insensitively, stored in lowercase.
    #[schema(required = true, value_type = String, example = "Jane.Doe@example.com", max_length = 254, pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$")]
    pub email: Option<String>,
    /// Derived from the e-mail when not given for a new subscriber.
    #[schema(max_length = 255)]
    pub name: Option<String>,
    /// Merged key by key into the stored meta; a null value removes a key.
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
    /// An http(s) URL of at most 2,048 characters; blank means none.
    #[schema(max_length = 2048, pattern = r"^\s*([Hh][Tt][Tt][Pp][Ss]?://\S*\s*)?$")]
    pub avatar_url: Option<String>,
    /// `widget` or `api` (default `api`).
    #[schema(pattern = r"^(widget|api)$")]
    pub source: Option<String>,
}

impl From<IdentifyParams> for IdentifySubscriber {
    fn from(p: IdentifyParams) -> Self {
        Self {
            email: p.email,
            name: p.name,
            meta: p.meta,
            avatar_url: p.avatar_url,
            source: p.source,
        }
    }
}

/// `{data: Subscriber, code, isFirstSignin}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentifyResponse {
    pub data: SubscriberDto,
    /// The subscriber token (a JWT valid for 90 days).
    pub code: String,
    /// True when this call created the subscriber.
    pub is_first_signin: bool,
}

impl From<&Identified> for IdentifyResponse {
    fn from(i: &Identified) -> Self {
        Self {
            data: (&i.subscriber).into(),
            code: i.token.clone(),
            is_first_signin: i.is_first_signin,
        }
    }
}
