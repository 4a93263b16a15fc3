//! The authentication middleware: finds the request's credential — `Authorization: Bearer`
//! first, else the `publicAccessToken` cookie — resolves it once with
//! `sounding_app::auth::authenticate`, and leaves the outcome in the request's extensions.
//! It rejects nothing itself: the extractors of [`super::extract`] decide per operation, and
//! the rate limiter buckets by the outcome.

use actix_web::{
    body::MessageBody,
    dev::{ServiceRequest, ServiceResponse},
    http::header::AUTHORIZATION,
    middleware::Next,
    web, Error, HttpMessage, HttpRequest,
};
use sounding_app::{
    auth::{authenticate, Credential},
    AppError,
};
use sounding_domain::{access::Caller, ports::StoreError};

use crate::state::ApiState;

/// The cookie a widget may carry the subscriber token in.
pub const TOKEN_COOKIE: &str = "publicAccessToken";

/// What authentication found: `None` when the request carried no credential.
#[derive(Debug, Clone)]
pub struct Authentication(pub Option<Result<Caller, AppError>>);

impl Authentication {
    pub fn caller(&self) -> Option<&Caller> {
        self.0.as_ref().and_then(|outcome| outcome.as_ref().ok())
    }
}

pub async fn resolve_caller(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let outcome = match credential(req.request()) {
        None => None,
        Some(credential) => Some(match req.app_data::<web::Data<ApiState>>().cloned() {
            Some(state) => {
                let store = &*state.store;
                authenticate(store, store, &*state.tokens, &*state.clock, &credential).await
            }
            None => Err(AppError::Store(StoreError::Failure(
                "ApiState is not registered as app data".into(),
            ))),
        }),
    };
    req.extensions_mut().insert(Authentication(outcome));
    next.call(req).await
}

/// The first non-empty of the bearer token and the cookie. Authorization headers of other
/// schemes (`Basic …`) are not ours and are ignored.
fn credential(req: &HttpRequest) -> Option<Credential> {
    bearer_token(req).map(Credential::Bearer).or_else(|| {
        req.cookie(TOKEN_COOKIE)
            .map(|c| c.value().trim().to_owned())
            .filter(|t| !t.is_empty())
            .map(Credential::Cookie)
    })
}

fn bearer_token(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{cookie::Cookie, test::TestRequest};

    fn found(req: TestRequest) -> Option<Credential> {
        credential(&req.to_http_request())
    }

    #[test]
    fn the_header_wins_over_the_cookie() {
        let req = TestRequest::default()
            .insert_header((AUTHORIZATION, "Bearer  header-token "))
            .cookie(Cookie::new(TOKEN_COOKIE, "cookie-token"));
        assert_eq!(found(req), Some(Credential::Bearer("header-token".into())));
    }

    #[test]
    fn the_cookie_is_used_without_a_bearer_header() {
        for header in [
            None,
            Some("Basic dXNlcjpwYXNz"),
            Some("Bearer "),
            Some("bearer"),
        ] {
            let mut req = TestRequest::default().cookie(Cookie::new(TOKEN_COOKIE, "cookie-token"));
            if let Some(h) = header {
                req = req.insert_header((AUTHORIZATION, h));
            }
            assert_eq!(
                found(req),
                Some(Credential::Cookie("cookie-token".into())),
                "{header:?}"
            );
        }
    }

    #[test]
    fn no_credential_is_none() {
        assert_eq!(found(TestRequest::default()), None);
        let empty_cookie = TestRequest::default().cookie(Cookie::new(TOKEN_COOKIE, ""));
        assert_eq!(found(empty_cookie), None);
        let lowercase = TestRequest::default().insert_header((AUTHORIZATION, "bearer abc"));
        assert_eq!(found(lowercase), Some(Credential::Bearer("abc".into())));
    }
}
