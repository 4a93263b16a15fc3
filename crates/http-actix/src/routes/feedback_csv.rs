//! Feedback as CSV: `feedbacks.export` and `feedbacks.import` (API key that may write).

use actix_web::{http::header, web, HttpResponse};
use sounding_app::feedback_csv;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        common::ErrorBody,
        notification::{ExportParams, ImportParams, ImportResponse},
    },
    error::ApiError,
    params::csv_body::CsvOrParams,
    state::ApiState,
};

/// Every item of the team (unpublished and archived too; of one board or status when asked),
/// newest first, as RFC 4180 CSV with a header row. Cells that would start a spreadsheet
/// formula (`=`, `+`, `-`, `@`, tab, CR) are prefixed with `'`. Not for read-only keys.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.export",
    operation_id = "feedbacks.export",
    tag = "feedbacks",
    request_body = ExportParams,
    responses(
        (status = 200, description = "The CSV: id, title, text, status, priority, type, board, creatorEmail, creatorName, votes, comments, createdAt, publishedAt, archivedAt.", content_type = "text/csv", body = String),
        (status = 400, description = "`boardId must be a UUID`, `status must be one of …`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Board not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn export(
    Call(state, caller, params): Call<TeamCaller, ExportParams>,
) -> Result<HttpResponse, ApiError> {
    let text =
        feedback_csv::export_feedback(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"feedback.csv\"",
        ))
        .body(text))
}

/// Creates one item per CSV row (`feedbacks.export`'s format), each as `feedbacks.create`
/// would, emitting `new_feedback`. The CSV is the raw body (`Content-Type: text/csv`,
/// `boardId` in the query string) or the JSON parameter `csv`. Rows that fail are refused
/// with their reason; the others are created.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.import",
    operation_id = "feedbacks.import",
    tag = "feedbacks",
    request_body(content(
        (ImportParams = "application/json"),
        (String = "text/csv"),
    )),
    responses(
        (status = 200, description = "How many were created, and the rows refused.", body = ImportResponse),
        (status = 400, description = "`csv is required`, `csv must have a header row with a title column`, `csv must be UTF-8 text`, `boardId must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Board not found` (`boardId`).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn import(
    state: web::Data<ApiState>,
    caller: TeamCaller,
    CsvOrParams(params): CsvOrParams<ImportParams>,
) -> Result<HttpResponse, ApiError> {
    let report =
        feedback_csv::import_feedback(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(ImportResponse::from(report)))
}
