//! Extractors that demand a kind of caller, read from the outcome the middleware left:
//! [`TeamCaller`] (a team API key, "K"), [`SubscriberCaller`] (a subscriber token, "J") and
//! [`AnyCaller`] (either). A missing, unknown or wrong-kind credential is 401
//! `Authentication required`; an expired token is 401 `Token expired`.

use std::future::{ready, Ready};

use actix_web::{dev::Payload, FromRequest, HttpMessage, HttpRequest};
use sounding_app::{AppError, AuthError};
use sounding_domain::access::{Caller, KeyHolder, SubscriberSession};

use super::middleware::Authentication;
use crate::error::ApiError;

/// A caller holding a team API key.
#[derive(Debug, Clone)]
pub struct TeamCaller(pub KeyHolder);

/// A caller holding a subscriber token.
#[derive(Debug, Clone)]
pub struct SubscriberCaller(pub SubscriberSession);

/// A caller holding either credential.
#[derive(Debug, Clone)]
pub struct AnyCaller(pub Caller);

/// The caller if one authenticated, for operations that answer the unauthenticated
/// themselves (`topic-votes.create`: `Bad request`). An unknown credential counts as none; an
/// expired token is still 401 `Token expired`, and a storage failure still fails.
#[derive(Debug, Clone)]
pub struct OptionalCaller(pub Option<Caller>);

/// The authenticated caller, or the error that stands for its absence.
fn caller(req: &HttpRequest) -> Result<Caller, ApiError> {
    match req.extensions().get::<Authentication>() {
        Some(Authentication(Some(Ok(caller)))) => Ok(caller.clone()),
        Some(Authentication(Some(Err(err)))) => Err(err.clone().into()),
        Some(Authentication(None)) | None => Err(ApiError::authentication_required()),
    }
}

impl FromRequest for TeamCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(caller(req).and_then(|c| match c {
            Caller::Team(holder) => Ok(TeamCaller(holder)),
            Caller::Subscriber(_) | Caller::Visitor(_) => Err(ApiError::authentication_required()),
        }))
    }
}

impl FromRequest for SubscriberCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(caller(req).and_then(|c| match c {
            Caller::Subscriber(session) => Ok(SubscriberCaller(session)),
            Caller::Team(_) | Caller::Visitor(_) => Err(ApiError::authentication_required()),
        }))
    }
}

impl FromRequest for AnyCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(caller(req).map(AnyCaller))
    }
}

impl FromRequest for OptionalCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match req.extensions().get::<Authentication>() {
            Some(Authentication(Some(Ok(caller)))) => Ok(OptionalCaller(Some(caller.clone()))),
            Some(Authentication(Some(Err(AppError::Auth(AuthError::Required)))))
            | Some(Authentication(None))
            | None => Ok(OptionalCaller(None)),
            Some(Authentication(Some(Err(err)))) => Err(err.clone().into()),
        })
    }
}
