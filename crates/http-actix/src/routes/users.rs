//! `users.list|create|update|delete` (team API key): the team's users and their roles.
//! Changes need an admin key; deletion an owner key. Only owners make, change or remove
//! owners, and the last owner stays.

use actix_web::HttpResponse;
use sounding_app::users;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        access::{CreateUserParams, IdParams, UpdateUserParams, UserListResponse, UserResponse},
        common::{DeletedResponse, ErrorBody, NoParams},
    },
    error::ApiError,
};

/// The team's users: owners first, then admins, then members.
#[utoipa::path(
    post,
    path = "/v1/users.list",
    operation_id = "users.list",
    tag = "users",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "Every user of the team.", body = UserListResponse),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, _): Call<TeamCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    let found = users::list_users(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(UserListResponse {
        data: found.iter().map(Into::into).collect(),
    }))
}

/// Adds a user to the team (admin key; an owner only by an owner key).
#[utoipa::path(
    post,
    path = "/v1/users.create",
    operation_id = "users.create",
    tag = "users",
    request_body = CreateUserParams,
    responses(
        (status = 200, description = "The new user.", body = UserResponse),
        (status = 400, description = "A field is invalid, e.g. `email is required`, `role must be one of owner, admin, member`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage team users, or it is read-only, or a non-owner asked for an owner.", body = ErrorBody),
        (status = 409, description = "`A user with e-mail <email> already exists`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateUserParams>,
) -> Result<HttpResponse, ApiError> {
    let user = users::create_user(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(UserResponse {
        data: (&user).into(),
    }))
}

/// Changes a user's role (admin key; owners changed or made only by an owner key).
#[utoipa::path(
    post,
    path = "/v1/users.update",
    operation_id = "users.update",
    tag = "users",
    request_body = UpdateUserParams,
    responses(
        (status = 200, description = "The user with the new role.", body = UserResponse),
        (status = 400, description = "`id is required`, `role is required`, `role must be one of owner, admin, member`.", body = ErrorBody),
        (status = 403, description = "Not an admin key, read-only, or an owner change by a non-owner: `Only an owner can change an owner or make one`.", body = ErrorBody),
        (status = 404, description = "`User not found`.", body = ErrorBody),
        (status = 409, description = "`The team must keep at least one owner`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateUserParams>,
) -> Result<HttpResponse, ApiError> {
    let user = users::update_user_role(
        &*state.store,
        &caller.0,
        params.id.as_deref(),
        params.role.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(UserResponse {
        data: (&user).into(),
    }))
}

/// Removes a user and their API keys (owner key).
#[utoipa::path(
    post,
    path = "/v1/users.delete",
    operation_id = "users.delete",
    tag = "users",
    request_body = IdParams,
    responses(
        (status = 200, description = "Deleted; the user's keys fail with 401 from now on.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "Not an owner key: `Only an owner can delete team users`.", body = ErrorBody),
        (status = 404, description = "`User not found`.", body = ErrorBody),
        (status = 409, description = "`The team must keep at least one owner`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, IdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = users::delete_user(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
