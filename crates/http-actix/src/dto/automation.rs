//! Webhook subscription and delivery shapes, and the parameters of `automation.*`.

use serde::{Deserialize, Serialize};
use sounding_app::automation::{DeliveryListInput, Subscribed, Unsubscribe};
use sounding_domain::{
    webhook::{Delivery, WebhookSubscription},
    DeliveryId, EventId, Timestamp, WebhookId,
};
use utoipa::ToSchema;

use super::common::Pagination;
use crate::params::lenient;

/// A subscription as listed (no secret).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: WebhookId,
    pub target_url: String,
    pub event: &'static str,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

impl From<&WebhookSubscription> for WebhookDto {
    fn from(w: &WebhookSubscription) -> Self {
        Self {
            id: w.id,
            target_url: w.target_url.clone(),
            event: w.event.as_str(),
            created_at: w.created_at,
        }
    }
}

/// A new subscription: with its signing secret, shown this once. A repeated subscribe of the
/// same target and event answers the existing subscription without `secret`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscribedDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: WebhookId,
    pub target_url: String,
    pub event: &'static str,
    /// `whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key. Only when
    /// this call created the subscription.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

/// `{data: {id, targetUrl, event, secret?, createdAt}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SubscribedResponse {
    pub data: SubscribedDto,
}

impl SubscribedResponse {
    pub fn new(subscribed: &Subscribed) -> Self {
        let w = &subscribed.webhook;
        Self {
            data: SubscribedDto {
                id: w.id,
                target_url: w.target_url.clone(),
                event: w.event.as_str(),
                secret: subscribed.created.then(|| w.secret.clone()),
                created_at: w.created_at,
            },
        }
    }
}

/// `{data: [Subscription]}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookListResponse {
    pub data: Vec<WebhookDto>,
}

/// `automation.subscribe` (snake_case, as the interface names it; camelCase is accepted too).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct SubscribeParams {
    /// https (and a public address) unless the operator allows private targets.
    #[serde(alias = "targetUrl")]
    #[schema(required = true, value_type = String, example = "https://hooks.example.com/sounding", max_length = 2048, pattern = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?([/?#][^\s\x00-\x1f\x7f-\x9f]*)?\s*$")]
    pub target_url: Option<String>,
    /// `new_feedback`, `new_feedback_vote`, `feedback_status_change`, `feedbacks.create`,
    /// `feedbacks.update`, `feedbacks.delete`, `feedback-comments.create`,
    /// `feedback-comments.delete`, `topics.create`, `topics.update`, `topic-comments.create`,
    /// `topic-comments.delete` or `topic-votes.create`.
    #[schema(required = true, value_type = String, example = "new_feedback", pattern = r"^(new_feedback|new_feedback_vote|feedback_status_change|feedbacks\.create|feedbacks\.update|feedbacks\.delete|feedback-comments\.create|feedback-comments\.delete|topics\.create|topics\.update|topic-comments\.create|topic-comments\.delete|topic-votes\.create)$")]
    pub event: Option<String>,
}

/// `automation.unsubscribe`: `id`, or `target_url` and `event`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UnsubscribeParams {
    #[schema(value_type = Option<String>, format = Uuid)]
    pub id: Option<String>,
    #[serde(alias = "targetUrl")]
    pub target_url: Option<String>,
    #[schema(
        pattern = r"^(new_feedback|new_feedback_vote|feedback_status_change|feedbacks\.create|feedbacks\.update|feedbacks\.delete|feedback-comments\.create|feedback-comments\.delete|topics\.create|topics\.update|topic-comments\.create|topic-comments\.delete|topic-votes\.create)$"
    )]
    pub event: Option<String>,
}

impl From<UnsubscribeParams> for Unsubscribe {
    fn from(p: UnsubscribeParams) -> Self {
        Self {
            id: p.id,
            target_url: p.target_url,
            event: p.event,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryDto {
    /// Also the `webhook-id` header of every attempt.
    #[schema(value_type = String, format = Uuid)]
    pub id: DeliveryId,
    #[schema(value_type = String, format = Uuid)]
    pub subscription_id: WebhookId,
    #[schema(value_type = String, format = Uuid)]
    pub event_id: EventId,
    pub event: String,
    pub target_url: String,
    /// `pending`, `delivered` or `failed`.
    pub status: &'static str,
    pub attempts: i64,
    /// The last attempt's response status, if a response came.
    pub status_code: Option<i64>,
    /// The last attempt's duration in milliseconds.
    pub duration_ms: Option<i64>,
    pub error: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_attempt_at: Option<Timestamp>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_attempt_at: Option<Timestamp>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

impl From<&Delivery> for DeliveryDto {
    fn from(d: &Delivery) -> Self {
        Self {
            id: d.id,
            subscription_id: d.webhook_id,
            event_id: d.event_id,
            event: d.event.clone(),
            target_url: d.target_url.clone(),
            status: d.status.as_str(),
            attempts: d.attempts,
            status_code: d.last_status_code,
            duration_ms: d.last_duration_ms,
            error: d.last_error.clone(),
            next_attempt_at: d.next_attempt_at,
            last_attempt_at: d.last_attempt_at,
            created_at: d.created_at,
        }
    }
}

/// `{data: [Delivery], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryListResponse {
    pub data: Vec<DeliveryDto>,
    pub pagination: Pagination,
}

/// `automation.deliveries`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct DeliveryListParams {
    /// One subscription's deliveries.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub id: Option<String>,
    /// `pending`, `delivered` or `failed`.
    #[schema(pattern = r"^(pending|delivered|failed)$")]
    pub status: Option<String>,
    /// 1..=100, default 20.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<DeliveryListParams> for DeliveryListInput {
    fn from(p: DeliveryListParams) -> Self {
        Self {
            id: p.id,
            status: p.status,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `automation.redeliver`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeliverParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub delivery_id: Option<String>,
}

/// `{success: true, deliveryId}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeliverResponse {
    pub success: bool,
    #[schema(value_type = String, format = Uuid)]
    pub delivery_id: DeliveryId,
}
