//! `documents.create|list|info|update|publish|unpublish|delete` (team API key: any role may
//! write, read-only keys only list and read) and `public/documents.list` (team API key or
//! subscriber token).

use actix_web::HttpResponse;
use sounding_app::documents;
use sounding_domain::access::Caller;

use crate::{
    auth::{AnyCaller, TeamCaller},
    call::Call,
    dto::{
        common::{DeletedResponse, ErrorBody},
        document::{
            CreateDocumentParams, DocumentDto, DocumentIdParams, DocumentListParams,
            DocumentListResponse, DocumentResponse, PublicDocumentListParams, UpdateDocumentParams,
        },
    },
    error::ApiError,
    state::ApiState,
};

/// Creates a document: a draft, or published at once with `publish: true`.
#[utoipa::path(
    post,
    path = "/v1/documents.create",
    operation_id = "documents.create",
    tag = "documents",
    request_body = CreateDocumentParams,
    responses(
        (status = 200, description = "The new document.", body = DocumentResponse),
        (status = 400, description = "A field is invalid, e.g. `title is required`, `text must be at most 50000 characters`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateDocumentParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        documents::create_document(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(DocumentResponse::from(&view)))
}

/// The team's documents, published or not, newest first.
#[utoipa::path(
    post,
    path = "/v1/documents.list",
    operation_id = "documents.list",
    tag = "documents",
    request_body = DocumentListParams,
    responses(
        (status = 200, description = "One page of documents.", body = DocumentListResponse),
        (status = 400, description = "`limit must be between 1 and 100`, `offset must be 0 or more`, `published must be a boolean`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, DocumentListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = documents::list_documents(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(DocumentListResponse::new(&page, DocumentDto::of)))
}

/// One of the team's documents, published or not.
#[utoipa::path(
    post,
    path = "/v1/documents.info",
    operation_id = "documents.info",
    tag = "documents",
    request_body = DocumentIdParams,
    responses(
        (status = 200, description = "The document.", body = DocumentResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Document not found` (also for another team's).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<TeamCaller, DocumentIdParams>,
) -> Result<HttpResponse, ApiError> {
    let view = documents::document_info(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DocumentResponse::from(&view)))
}

/// Changes a document's title and/or text; the url follows the new title.
#[utoipa::path(
    post,
    path = "/v1/documents.update",
    operation_id = "documents.update",
    tag = "documents",
    request_body = UpdateDocumentParams,
    responses(
        (status = 200, description = "The updated document.", body = DocumentResponse),
        (status = 400, description = "A field is invalid, e.g. `id must be a UUID`, `title is required`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Document not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateDocumentParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, changes) = params.into_parts();
    let view = documents::update_document(
        &*state.store,
        &*state.clock,
        &caller.0,
        id.as_deref(),
        changes,
    )
    .await?;
    Ok(HttpResponse::Ok().json(DocumentResponse::from(&view)))
}

/// Publishes a document. Idempotent: a published document keeps its first `publishedAt`.
#[utoipa::path(
    post,
    path = "/v1/documents.publish",
    operation_id = "documents.publish",
    tag = "documents",
    request_body = DocumentIdParams,
    responses(
        (status = 200, description = "The published document.", body = DocumentResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Document not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn publish(
    Call(state, caller, params): Call<TeamCaller, DocumentIdParams>,
) -> Result<HttpResponse, ApiError> {
    set_published(&state, &caller, params.id.as_deref(), true).await
}

/// Unpublishes a document (`publishedAt` null). Idempotent.
#[utoipa::path(
    post,
    path = "/v1/documents.unpublish",
    operation_id = "documents.unpublish",
    tag = "documents",
    request_body = DocumentIdParams,
    responses(
        (status = 200, description = "The unpublished document.", body = DocumentResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Document not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn unpublish(
    Call(state, caller, params): Call<TeamCaller, DocumentIdParams>,
) -> Result<HttpResponse, ApiError> {
    set_published(&state, &caller, params.id.as_deref(), false).await
}

/// `documents.publish` and `documents.unpublish`: one call and one answer; only the way differs.
async fn set_published(
    state: &ApiState,
    caller: &TeamCaller,
    id: Option<&str>,
    publish: bool,
) -> Result<HttpResponse, ApiError> {
    let (store, clock) = (&*state.store, &*state.clock);
    let view = if publish {
        documents::publish_document(store, clock, &caller.0, id).await?
    } else {
        documents::unpublish_document(store, clock, &caller.0, id).await?
    };
    Ok(HttpResponse::Ok().json(DocumentResponse::from(&view)))
}

/// Deletes a document with its reactions.
#[utoipa::path(
    post,
    path = "/v1/documents.delete",
    operation_id = "documents.delete",
    tag = "documents",
    request_body = DocumentIdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Document not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, DocumentIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = documents::delete_document(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}

/// The team's published documents, newest published first by default. Under a subscriber
/// token each item carries `myReactions`; with a key it does not.
#[utoipa::path(
    post,
    path = "/v1/public/documents.list",
    operation_id = "public/documents.list",
    tag = "documents",
    request_body = PublicDocumentListParams,
    responses(
        (status = 200, description = "One page of published documents.", body = DocumentListResponse),
        (status = 400, description = "`sort must be one of publishedAt, createdAt, updatedAt, title`, `direction must be one of ASC, DESC`, `limit must be between 1 and 100`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_list(
    Call(state, caller, params): Call<AnyCaller, PublicDocumentListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = documents::list_public_documents(&*state.store, &caller.0, params.into()).await?;
    let render = match caller.0 {
        Caller::Subscriber(_) => DocumentDto::with_mine,
        Caller::Team(_) | Caller::Visitor(_) => DocumentDto::of,
    };
    Ok(HttpResponse::Ok().json(DocumentListResponse::new(&page, render)))
}
