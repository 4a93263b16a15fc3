//! `feedback-boards.create|list|info|update|delete` (team API key) and
//! `public/feedback-boards.list` (team API key or subscriber token).

use actix_web::HttpResponse;
use sounding_app::boards;
use sounding_domain::{board::BoardView, page::PageRequest};

use crate::{
    auth::{AnyCaller, TeamCaller},
    call::{Call, ReadCall},
    dto::{
        board::{
            BoardDto, BoardIdParams, BoardListResponse, BoardResponse, CreateBoardParams,
            ListParams, UpdateBoardParams,
        },
        common::{paginate, DeletedResponse, ErrorBody},
    },
    error::ApiError,
    remembered::remembered,
};

/// Board lists return every board by default.
const DEFAULT_LIMIT: i64 = 100;

fn page(params: &ListParams) -> Result<PageRequest, ApiError> {
    Ok(PageRequest::new(
        params.limit,
        params.offset,
        DEFAULT_LIMIT,
    )?)
}

fn board_list(views: &[BoardView], page: PageRequest) -> BoardListResponse {
    let (data, pagination) = paginate(views, page, |v| BoardDto::from(v));
    BoardListResponse { data, pagination }
}

/// Creates a board (owner or admin key). The slug is derived from the name and made unique
/// when not given; the board goes after the others when no order is given.
#[utoipa::path(
    post,
    path = "/v1/feedback-boards.create",
    operation_id = "feedback-boards.create",
    tag = "feedback-boards",
    request_body = CreateBoardParams,
    responses(
        (status = 200, description = "The new board.", body = BoardResponse),
        (status = 400, description = "A field is invalid, e.g. `name is required`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage boards, or it is read-only.", body = ErrorBody),
        (status = 409, description = "The slug given is taken: `A board with slug <slug> already exists`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateBoardParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        boards::create_board(&*state.store, &*state.clock, &caller.0, params.try_into()?).await?;
    Ok(HttpResponse::Ok().json(BoardResponse::from(&view)))
}

/// Every board of the team, public or not, ordered by `order`.
#[utoipa::path(
    post,
    path = "/v1/feedback-boards.list",
    operation_id = "feedback-boards.list",
    tag = "feedback-boards",
    request_body = ListParams,
    responses(
        (status = 200, description = "One page of boards.", body = BoardListResponse),
        (status = 400, description = "`limit must be between 1 and 100`, `offset must be 0 or more`, `limit must be an integer`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, ListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = page(&params)?;
    let views = boards::list_boards(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(board_list(&views, page)))
}

/// One board of the team.
#[utoipa::path(
    post,
    path = "/v1/feedback-boards.info",
    operation_id = "feedback-boards.info",
    tag = "feedback-boards",
    request_body = BoardIdParams,
    responses(
        (status = 200, description = "The board.", body = BoardResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Board not found` (also for another team's board).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<TeamCaller, BoardIdParams>,
) -> Result<HttpResponse, ApiError> {
    let view = boards::board_info(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(BoardResponse::from(&view)))
}

/// Changes a board (owner or admin key). Only the fields given change; meta keys merge.
#[utoipa::path(
    post,
    path = "/v1/feedback-boards.update",
    operation_id = "feedback-boards.update",
    tag = "feedback-boards",
    request_body = UpdateBoardParams,
    responses(
        (status = 200, description = "The updated board.", body = BoardResponse),
        (status = 400, description = "A field is invalid, e.g. `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage boards, or it is read-only.", body = ErrorBody),
        (status = 404, description = "`Board not found`.", body = ErrorBody),
        (status = 409, description = "The new slug is taken.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateBoardParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, input) = params.into_parts()?;
    let view = boards::update_board(
        &*state.store,
        &*state.clock,
        &caller.0,
        id.as_deref(),
        input,
    )
    .await?;
    Ok(HttpResponse::Ok().json(BoardResponse::from(&view)))
}

/// Deletes a board (owner or admin key).
#[utoipa::path(
    post,
    path = "/v1/feedback-boards.delete",
    operation_id = "feedback-boards.delete",
    tag = "feedback-boards",
    request_body = BoardIdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage boards, or it is read-only.", body = ErrorBody),
        (status = 404, description = "`Board not found`.", body = ErrorBody),
        (status = 409, description = "`Board still holds feedback; move or delete it first`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, BoardIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = boards::delete_board(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}

/// The team's public boards (`meta.isPublic`), ordered by `order`.
#[utoipa::path(
    post,
    path = "/v1/public/feedback-boards.list",
    operation_id = "public/feedback-boards.list",
    tag = "feedback-boards",
    request_body = ListParams,
    responses(
        (status = 200, description = "One page of public boards.", body = BoardListResponse),
        (status = 400, description = "`limit must be between 1 and 100`, `offset must be 0 or more`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_list(
    ReadCall(state, caller, params, recall): ReadCall<AnyCaller, ListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = page(&params)?;
    remembered(
        &*state.store,
        caller.0.audience(),
        recall.as_ref(),
        || async {
            let views = boards::list_public_boards(&*state.store, &caller.0).await?;
            Ok(board_list(&views, page))
        },
    )
    .await
}
