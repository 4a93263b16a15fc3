//! `public/document-reactions.create|delete` (subscriber token only; a key is 401).

use actix_web::HttpResponse;
use sounding_app::documents;

use crate::{
    auth::SubscriberCaller,
    call::Call,
    dto::{
        common::ErrorBody,
        document::{DocumentReactionParams, DocumentReactionResponse},
    },
    error::ApiError,
};

/// Adds the calling subscriber's reaction with `emoji` to a published document. One reaction
/// per emoji per subscriber per document: a repeat changes nothing.
#[utoipa::path(
    post,
    path = "/v1/public/document-reactions.create",
    operation_id = "public/document-reactions.create",
    tag = "documents",
    request_body = DocumentReactionParams,
    responses(
        (status = 200, description = "The document's reactions after it.", body = DocumentReactionResponse),
        (status = 400, description = "`documentId is required`, `emoji is required`, `emoji must be at most 32 characters`, `emoji must not contain whitespace or control characters`.", body = ErrorBody),
        (status = 404, description = "`Document not found` (also unpublished or another team's).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<SubscriberCaller, DocumentReactionParams>,
) -> Result<HttpResponse, ApiError> {
    let outcome =
        documents::react_to_document(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(DocumentReactionResponse::from(outcome)))
}

/// Removes the calling subscriber's reaction with `emoji`, if any. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/document-reactions.delete",
    operation_id = "public/document-reactions.delete",
    tag = "documents",
    request_body = DocumentReactionParams,
    responses(
        (status = 200, description = "The document's reactions after it.", body = DocumentReactionResponse),
        (status = 400, description = "`documentId is required`, `emoji is required`, …", body = ErrorBody),
        (status = 404, description = "`Document not found` (also unpublished or another team's).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<SubscriberCaller, DocumentReactionParams>,
) -> Result<HttpResponse, ApiError> {
    let outcome =
        documents::unreact_to_document(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(DocumentReactionResponse::from(outcome)))
}
