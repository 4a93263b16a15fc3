//! `public/subscriber.identify` (team API key) and the subscriber's own session:
//! `public/subscriber.info` and `public/subscriber.logout` (subscriber token).

use actix_web::HttpResponse;
use sounding_app::subscribers;

use crate::{
    auth::{SubscriberCaller, TeamCaller},
    call::Call,
    dto::{
        common::{ErrorBody, NoParams, SuccessResponse},
        subscriber::{IdentifyParams, IdentifyResponse, SubscriberResponse},
    },
    error::ApiError,
    params::Params,
};

/// Finds the subscriber by e-mail (case-insensitive) and merges the given data into it, or
/// creates one; returns a fresh subscriber token in `code`.
#[utoipa::path(
    post,
    path = "/v1/public/subscriber.identify",
    operation_id = "public/subscriber.identify",
    tag = "subscribers",
    request_body = IdentifyParams,
    responses(
        (status = 200, description = "The subscriber and a token for it.", body = IdentifyResponse),
        (status = 400, description = "A field is invalid, e.g. `email is required`, `email must be a valid e-mail address`, `meta must be at most 16 KiB as JSON`.", body = ErrorBody),
        (status = 403, description = "The key is read-only.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn identify(
    Call(state, caller, params): Call<TeamCaller, IdentifyParams>,
) -> Result<HttpResponse, ApiError> {
    let identified = subscribers::identify_subscriber(
        &*state.store,
        &*state.tokens,
        &*state.clock,
        &caller.0,
        params.into(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(IdentifyResponse::from(&identified)))
}

/// The calling subscriber, as stored now.
#[utoipa::path(
    post,
    path = "/v1/public/subscriber.info",
    operation_id = "public/subscriber.info",
    tag = "subscribers",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "The subscriber.", body = SubscriberResponse),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn info(caller: SubscriberCaller, _: Params<NoParams>) -> Result<HttpResponse, ApiError> {
    let subscriber = subscribers::subscriber_info(&caller.0);
    Ok(HttpResponse::Ok().json(SubscriberResponse::from(&subscriber)))
}

/// Ends the subscriber's sessions: every token issued to the subscriber so far, this one
/// included, is refused from now on.
#[utoipa::path(
    post,
    path = "/v1/public/subscriber.logout",
    operation_id = "public/subscriber.logout",
    tag = "subscribers",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "Logged out.", body = SuccessResponse),
        (status = 404, description = "`Subscriber not found` (deleted meanwhile).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn logout(
    Call(state, caller, _): Call<SubscriberCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    subscribers::logout_subscriber(&*state.store, &*state.clock, &caller.0).await?;
    Ok(HttpResponse::Ok().json(SuccessResponse::ok()))
}
