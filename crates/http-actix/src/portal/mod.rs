//! The public portal: server-rendered, read-only pages of a team's public boards, items and
//! roadmaps at `/p/<subdomain>`, for visitors without a credential (issue 22). What it shows
//! is decided by the use cases of `sounding_app::portal`; this module only parses the request
//! and renders HTML (`pages`), escaped by construction (maud) under a strict
//! `Content-Security-Policy`.

mod pages;

use actix_web::{
    http::header::{self, HeaderValue},
    middleware::from_fn,
    web, HttpRequest, HttpResponse,
};
use maud::Markup;
use serde::Deserialize;
use sounding_app::portal::{FrontRequest, Portal};

use crate::{error::ApiError, rate_limit, routes::fallback, ApiState};

/// No inline script or style, nothing from elsewhere, no framing: titles and comments are
/// user input, and even if one escaped its escaping it could not run.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; \
     frame-ancestors 'none'";

/// The portal's routes (its stylesheet is one of `assets`). Pages are rate limited per client
/// address, as the API is for callers without a credential.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/p/{subdomain}")
            .service(page_resource("", front))
            .service(page_resource("/feedback/{id}", item))
            .service(page_resource("/roadmap", roadmap))
            .default_service(web::to(not_found))
            .wrap(from_fn(rate_limit::enforce)),
    );
}

fn page_resource<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::get().to(handler))
        .default_service(web::to(fallback::get_only))
}

/// The front page's query string: anything else is refused, not ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontQuery {
    sort: Option<String>,
    board: Option<String>,
    q: Option<String>,
    page: Option<i64>,
}

async fn front(
    state: web::Data<ApiState>,
    subdomain: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    let rendered = async {
        let query: FrontQuery = query(&req)?;
        let portal = Portal::open(&*state.store, &subdomain).await?;
        let request = FrontRequest {
            sort: query.sort.clone(),
            board: query.board.clone(),
            search: query.q.clone(),
            page: query.page,
        };
        let store = &*state.store;
        let front = portal.front(store, store, &*state.clock, request).await?;
        let view = pages::FrontView {
            sort_top: query.sort.as_deref() == Some("top"),
            search: query.q.as_deref().unwrap_or_default(),
            page: query.page.unwrap_or(1),
        };
        Ok(pages::front(&portal.team, &front, &view))
    };
    respond(rendered.await)
}

async fn item(
    state: web::Data<ApiState>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> HttpResponse {
    let rendered = async {
        query::<NoQuery>(&req)?;
        let (subdomain, id) = path.into_inner();
        let portal = Portal::open(&*state.store, &subdomain).await?;
        let (item, comments) = portal.item(&*state.store, &id).await?;
        Ok(pages::item(&portal.team, &item, &comments))
    };
    respond(rendered.await)
}

async fn roadmap(
    state: web::Data<ApiState>,
    subdomain: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    let rendered = async {
        query::<NoQuery>(&req)?;
        let portal = Portal::open(&*state.store, &subdomain).await?;
        let roadmaps = portal.roadmaps(&*state.store).await?;
        Ok(pages::roadmaps(&portal.team, &roadmaps))
    };
    respond(rendered.await)
}

async fn not_found() -> HttpResponse {
    respond(Err(ApiError::not_found()))
}

/// Pages without parameters refuse any.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoQuery {}

/// The page's parameters; any unknown one is refused, except those that shared links pick up
/// on the way (`utm_*`, `fbclid`, `gclid`, `mc_cid`, `mc_eid`), which change nothing.
fn query<T: for<'de> Deserialize<'de>>(req: &HttpRequest) -> Result<T, ApiError> {
    let refused = |e: actix_web::error::QueryPayloadError| {
        ApiError::bad_request(format!("The page's address is not understood: {e}"))
    };
    let pairs = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map_err(refused)?
        .into_inner();
    let mut kept = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in &pairs {
        if !is_tracking(name) {
            kept.append_pair(name, value);
        }
    }
    web::Query::<T>::from_query(&kept.finish())
        .map(web::Query::into_inner)
        .map_err(refused)
}

fn is_tracking(name: &str) -> bool {
    name.starts_with("utm_") || ["fbclid", "gclid", "mc_cid", "mc_eid"].contains(&name)
}

/// The page, or the error as a page with the error's status and words (a 500 says nothing
/// more than the API's does).
fn respond(rendered: Result<Markup, ApiError>) -> HttpResponse {
    let (mut response, markup) = match rendered {
        Ok(markup) => (HttpResponse::Ok(), markup),
        Err(error) => (
            HttpResponse::build(error.status()),
            pages::error(error.status().as_u16(), error.message()),
        ),
    };
    response
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-cache")))
        .body(markup.into_string())
}
