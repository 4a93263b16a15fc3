//! Answers of public reads remembered whole, as the bytes sent, until the next commit
//! (`AnswerStore`): a widget's board or thread is read far more often than it changes, and
//! writing the same JSON again was most of such a read's cost (docs/benchmarks.md).

use std::{future::Future, sync::Arc};

use actix_web::{http::header::ContentType, web::Bytes, HttpResponse};
use serde::Serialize;
use sounding_domain::{
    access::Audience,
    ports::{AnswerStore, Remembered},
};

use crate::{error::ApiError, params::Sent};

/// What names a read's answer besides its caller's audience: the operation (its route's
/// name, so a handler cannot name another operation's answers) and the parameters as sent.
#[derive(Debug, Clone)]
pub struct Recall {
    pub(crate) operation: &'static str,
    sent: Sent,
}

impl Recall {
    /// The recall of `operation` asked with `sent`.
    pub(crate) fn new(operation: &'static str, sent: Sent) -> Self {
        Recall { operation, sent }
    }
}

/// The answer of the `recall`ed operation for `audience`: the one remembered, if nothing was
/// committed since it was made; else made by `make`, sent, and remembered. `recall` is
/// `None` for an answer that may not be remembered (one that moves with the clock, or
/// parameters too long to keep, `params::MAX_SENT_BYTES`).
///
/// Only for reads whose answer depends on nothing but the stored data, the parameters and
/// the caller's `Audience`; and only a 200 is remembered, never an error.
pub(crate) async fn remembered<T, F>(
    store: &dyn AnswerStore,
    audience: Audience,
    recall: Option<&Recall>,
    make: impl FnOnce() -> F,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize,
    F: Future<Output = Result<T, ApiError>>,
{
    let Some(recall) = recall else {
        return Ok(HttpResponse::Ok().json(make().await?));
    };
    let operation = recall.operation;
    let key = key(operation, audience, &recall.sent);
    let place = match store.remembered_answer(&key).await {
        Remembered::Answer(body) => return Ok(json(Bytes::from_owner(body))),
        Remembered::Missing(place) => place,
    };
    let body = serde_json::to_vec(&make().await?).map_err(|error| {
        tracing::error!(%error, operation, "an answer could not be written as JSON");
        ApiError::internal()
    })?;
    let body = match place {
        Some(place) => {
            let body: Arc<[u8]> = body.into();
            store.remember_answer(place, body.clone());
            Bytes::from_owner(body)
        }
        None => Bytes::from(body),
    };
    Ok(json(body))
}

/// The key of an answer: the operation's name, a zero byte, the audience (always as long),
/// the parameters as sent. No two different inputs make the same key.
fn key(operation: &'static str, audience: Audience, sent: &Sent) -> Vec<u8> {
    let audience = audience_bytes(audience);
    let sent = sent.as_bytes();
    let mut key = Vec::with_capacity(operation.len() + 1 + audience.len() + sent.len());
    key.extend_from_slice(operation.as_bytes());
    key.push(0);
    key.extend_from_slice(&audience);
    key.extend_from_slice(sent);
    key
}

/// The audience in bytes, always 34 of them: the team, the member flag, whether there is a
/// subscriber, and the subscriber (zeros when none).
fn audience_bytes(audience: Audience) -> [u8; 34] {
    let mut bytes = [0; 34];
    bytes[..16].copy_from_slice(audience.team_id.0.as_bytes());
    bytes[16] = u8::from(audience.team_member);
    if let Some(subscriber) = audience.subscriber_id {
        bytes[17] = 1;
        bytes[18..].copy_from_slice(subscriber.0.as_bytes());
    }
    bytes
}

fn json(body: Bytes) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(body)
}
