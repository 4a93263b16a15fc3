//! `automation.subscribe|unsubscribe|list|deliveries|redeliver` (team API key; changes need
//! the admin role): webhook subscriptions and their deliveries. `zapier.subscribe|unsubscribe`
//! are Userorbit's names for the first two.

use actix_web::HttpResponse;
use sounding_app::automation;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        automation::{
            DeliveryDto, DeliveryListParams, DeliveryListResponse, RedeliverParams,
            RedeliverResponse, SubscribeParams, SubscribedResponse, UnsubscribeParams, WebhookDto,
            WebhookListResponse,
        },
        common::{ErrorBody, NoParams, Pagination, SuccessResponse},
    },
    error::ApiError,
};

/// Subscribes a target URL to one event. The signing secret is shown here only.
#[utoipa::path(
    post,
    path = "/v1/automation.subscribe",
    operation_id = "automation.subscribe",
    tag = "automation",
    request_body = SubscribeParams,
    responses(
        (status = 200, description = "The subscription, with its signing secret when this call created it; the team's existing subscription of the same target and event, without `secret`, when it had one.", body = SubscribedResponse),
        (status = 400, description = "`target_url is required`, `target_url must use https`, `target_url must not point at a private, loopback or reserved address`, `target_url resolves to a private, loopback or reserved address`, `event must be one of new_feedback, …`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage automation.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn subscribe(
    Call(state, caller, params): Call<TeamCaller, SubscribeParams>,
) -> Result<HttpResponse, ApiError> {
    let subscribed = automation::subscribe(
        &*state.store,
        &*state.host_resolver,
        &*state.clock,
        &caller.0,
        state.webhook_policy,
        params.target_url.as_deref(),
        params.event.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(SubscribedResponse::new(&subscribed)))
}

/// Removes a subscription, by `id` or by `target_url` and `event`.
#[utoipa::path(
    post,
    path = "/v1/automation.unsubscribe",
    operation_id = "automation.unsubscribe",
    tag = "automation",
    request_body = UnsubscribeParams,
    responses(
        (status = 200, description = "Removed.", body = SuccessResponse),
        (status = 400, description = "`id or target_url is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Subscription not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn unsubscribe(
    Call(state, caller, params): Call<TeamCaller, UnsubscribeParams>,
) -> Result<HttpResponse, ApiError> {
    automation::unsubscribe(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(SuccessResponse::ok()))
}

/// Userorbit's name for `automation.subscribe`: the same operation.
#[utoipa::path(
    post,
    path = "/v1/zapier.subscribe",
    operation_id = "zapier.subscribe",
    tag = "automation",
    request_body = SubscribeParams,
    responses(
        (status = 200, description = "As `automation.subscribe`.", body = SubscribedResponse),
        (status = 400, description = "As `automation.subscribe`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage automation.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn zapier_subscribe(
    call: Call<TeamCaller, SubscribeParams>,
) -> Result<HttpResponse, ApiError> {
    subscribe(call).await
}

/// Userorbit's name for `automation.unsubscribe`: the same operation.
#[utoipa::path(
    post,
    path = "/v1/zapier.unsubscribe",
    operation_id = "zapier.unsubscribe",
    tag = "automation",
    request_body = UnsubscribeParams,
    responses(
        (status = 200, description = "Removed.", body = SuccessResponse),
        (status = 400, description = "As `automation.unsubscribe`.", body = ErrorBody),
        (status = 404, description = "`Subscription not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn zapier_unsubscribe(
    call: Call<TeamCaller, UnsubscribeParams>,
) -> Result<HttpResponse, ApiError> {
    unsubscribe(call).await
}

/// The team's subscriptions (without secrets), oldest first.
#[utoipa::path(
    post,
    path = "/v1/automation.list",
    operation_id = "automation.list",
    tag = "automation",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "The subscriptions.", body = WebhookListResponse),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, _): Call<TeamCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    let webhooks = automation::list_webhooks(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(WebhookListResponse {
        data: webhooks.iter().map(WebhookDto::from).collect(),
    }))
}

/// Delivery attempts, newest first: status, attempts, last status code, duration, error and
/// next attempt time.
#[utoipa::path(
    post,
    path = "/v1/automation.deliveries",
    operation_id = "automation.deliveries",
    tag = "automation",
    request_body = DeliveryListParams,
    responses(
        (status = 200, description = "One page of deliveries.", body = DeliveryListResponse),
        (status = 400, description = "`status must be one of pending, delivered, failed`, `id must be a UUID`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn deliveries(
    Call(state, caller, params): Call<TeamCaller, DeliveryListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = automation::list_deliveries(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(DeliveryListResponse {
        data: page.items.iter().map(DeliveryDto::from).collect(),
        pagination: Pagination::of(&page),
    }))
}

/// Queues a delivery again, due now, with a fresh retry schedule.
#[utoipa::path(
    post,
    path = "/v1/automation.redeliver",
    operation_id = "automation.redeliver",
    tag = "automation",
    request_body = RedeliverParams,
    responses(
        (status = 200, description = "Queued.", body = RedeliverResponse),
        (status = 404, description = "`Delivery not found` (also when its subscription is gone).", body = ErrorBody),
        (status = 409, description = "`The delivery is being attempted right now; redeliver it once that attempt ends`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn redeliver(
    Call(state, caller, params): Call<TeamCaller, RedeliverParams>,
) -> Result<HttpResponse, ApiError> {
    let id = automation::redeliver(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.delivery_id.as_deref(),
    )
    .await?;
    state.outbox_signal.notify_one();
    Ok(HttpResponse::Ok().json(RedeliverResponse {
        success: true,
        delivery_id: id,
    }))
}
