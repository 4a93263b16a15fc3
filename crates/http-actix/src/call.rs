//! [`Call`]: what every operation's handler receives, extracted once here rather than as the
//! same three arguments on each handler.

use actix_web::{dev::Payload, web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use crate::{
    params::{Params, SentParams},
    remembered::Recall,
    request_metrics::RouteName,
    state::ApiState,
};

/// One call of an operation, `Call(state, caller, params)`: the application state, the caller
/// (`C` is the kind of caller the operation admits: [`crate::auth::TeamCaller`] and the like)
/// and the operation's parameters, read as [`Params`] reads them.
///
/// The three are resolved in this order, as actix resolves a handler's arguments, so a caller
/// the operation refuses is answered (401) before the parameters are judged (400).
pub struct Call<C, P>(pub web::Data<ApiState>, pub C, pub P);

impl<C, P> FromRequest for Call<C, P>
where
    C: FromRequest + 'static,
    C::Error: Into<actix_web::Error>,
    P: DeserializeOwned + 'static,
{
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let call = state_caller_and::<C, Params<P>>(req, payload);
        Box::pin(async move {
            let (state, caller, Params(params)) = call.await?;
            Ok(Self(state, caller, params))
        })
    }
}

/// A call of a read whose answer may be remembered (`crate::remembered`):
/// `ReadCall(state, caller, params, recall)`, as [`Call`] with the route's name and the
/// parameters as sent besides (`None` when they were too long to keep, `SentParams`).
pub struct ReadCall<C, P>(pub web::Data<ApiState>, pub C, pub P, pub Option<Recall>);

impl<C, P> FromRequest for ReadCall<C, P>
where
    C: FromRequest + 'static,
    C::Error: Into<actix_web::Error>,
    P: DeserializeOwned + 'static,
{
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let operation = req.app_data::<RouteName>().map(|RouteName(name)| *name);
        let call = state_caller_and::<C, SentParams<P>>(req, payload);
        Box::pin(async move {
            let (state, caller, SentParams(params, sent)) = call.await?;
            let recall = operation
                .zip(sent)
                .map(|(operation, sent)| Recall::new(operation, sent));
            Ok(Self(state, caller, params, recall))
        })
    }
}

/// The state, the caller `C` and the parameters `X` of a call, resolved in that order (see
/// [`Call`]).
fn state_caller_and<C, X>(
    req: &HttpRequest,
    payload: &mut Payload,
) -> impl std::future::Future<Output = Result<(web::Data<ApiState>, C, X), actix_web::Error>> + 'static
where
    C: FromRequest + 'static,
    C::Error: Into<actix_web::Error>,
    X: FromRequest + 'static,
    X::Error: Into<actix_web::Error>,
{
    let state = web::Data::<ApiState>::from_request(req, payload);
    let caller = C::from_request(req, payload);
    let params = X::from_request(req, payload);
    async move {
        let state = state.await?;
        let caller = caller.await.map_err(Into::<actix_web::Error>::into)?;
        let params = params.await.map_err(Into::<actix_web::Error>::into)?;
        Ok((state, caller, params))
    }
}
