//! The one parameter extractor, [`Params`]: reads the body itself (at most 1 MiB), requires
//! `application/json` for a non-empty body, merges query-string parameters under the body's
//! (the body wins on a clash), refuses every parameter the operation does not name, and
//! deserializes the result, naming the field in every error.
//!
//! Rules (decisions §1): an empty body is `{}`; a body that is not a JSON object is 400;
//! malformed JSON is 400; another `Content-Type` with a non-empty body is 415; a body over
//! 1 MiB is 413 (checked against `Content-Length` before reading, and while reading); an
//! unknown parameter, in the body or the query, is 400 `Unknown parameter: <names>`.

pub mod csv_body;
pub mod lenient;

use actix_web::{
    dev::Payload,
    http::header::{CONTENT_LENGTH, CONTENT_TYPE},
    web::{self, BytesMut},
    FromRequest, HttpRequest,
};
use futures_util::{future::LocalBoxFuture, StreamExt};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::ApiError;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a request's body may take to arrive once its head is in: actix's own timeout
/// covers only the head, and a client trickling a body would hold the connection for ever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyDeadline(pub std::time::Duration);

impl Default for BodyDeadline {
    fn default() -> Self {
        Self(std::time::Duration::from_secs(10))
    }
}

/// An operation's parameters, from the JSON body and the query string.
#[derive(Debug, Clone)]
pub struct Params<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Params<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let params = read_params(req, payload, |req, body| merged_object(req, &body));
        Box::pin(async move { params.await.map(Params) })
    }
}

/// `Params`, and the parameters exactly as the client sent them (`Sent`), when they fit in
/// `MAX_SENT_BYTES`: what identifies them when an answer is remembered (`crate::remembered`).
#[derive(Debug, Clone)]
pub struct SentParams<T>(pub T, pub Option<Sent>);

/// Parameters sent in more bytes than this are not kept as `Sent`, so their answers are made
/// anew each time: a remembered answer's key holds them whole, and a hostile client could
/// fill the cache with megabyte keys. A widget's list asks in a few dozen bytes.
pub const MAX_SENT_BYTES: usize = 1024;

/// A request's query string and body, as sent, in one run of bytes: the query's length (four
/// bytes), the query, the body. Two requests sent alike have the same parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent(Vec<u8>);

impl Sent {
    /// The parameters as sent, or `None` when they take more than `MAX_SENT_BYTES`.
    fn of(req: &HttpRequest, body: &[u8]) -> Option<Self> {
        let query = req.query_string().as_bytes();
        let len = 4 + query.len() + body.len();
        if len > MAX_SENT_BYTES {
            return None;
        }
        // Under `MAX_SENT_BYTES`, so the length fits.
        let query_len = u32::try_from(query.len()).ok()?;
        let mut sent = Vec::with_capacity(len);
        sent.extend_from_slice(&query_len.to_le_bytes());
        sent.extend_from_slice(query);
        sent.extend_from_slice(body);
        Some(Sent(sent))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for SentParams<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let payload = payload.take();
        Box::pin(async move {
            let body = read_body(&req, payload).await?;
            let params = decode(merged_object(&req, &body)?)?;
            Ok(SentParams(params, Sent::of(&req, &body)))
        })
    }
}

/// How an extractor makes the parameter object of the request and its whole body.
pub(crate) type ToObject = fn(&HttpRequest, BytesMut) -> Result<Map<String, Value>, ApiError>;

/// The work of every parameter extractor: reads the whole body (see [`read_body`]), makes
/// the parameter object of it with `object`, and decodes that into `T`.
pub(crate) fn read_params<T: DeserializeOwned + 'static>(
    req: &HttpRequest,
    payload: &mut Payload,
    object: ToObject,
) -> LocalBoxFuture<'static, Result<T, ApiError>> {
    let req = req.clone();
    let payload = payload.take();
    Box::pin(async move {
        let body = read_body(&req, payload).await?;
        decode(object(&req, body)?)
    })
}

/// The whole body, within the app's [`BodyDeadline`]: 408 when it does not arrive in time.
pub(crate) async fn read_body(req: &HttpRequest, payload: Payload) -> Result<BytesMut, ApiError> {
    let deadline = req.app_data::<BodyDeadline>().copied().unwrap_or_default();
    actix_web::rt::time::timeout(deadline.0, read_all(req, payload))
        .await
        .unwrap_or_else(|_| Err(ApiError::body_timeout(deadline.0)))
}

async fn read_all(req: &HttpRequest, mut payload: Payload) -> Result<BytesMut, ApiError> {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return Err(ApiError::payload_too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match e {
            actix_web::error::PayloadError::Overflow => ApiError::payload_too_large(),
            other => ApiError::bad_request(format!("Could not read the request body: {other}")),
        })?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::payload_too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The body's object (or `{}`) with the query-string parameters it lacks added as strings.
pub(crate) fn merged_object(
    req: &HttpRequest,
    body: &[u8],
) -> Result<Map<String, Value>, ApiError> {
    let mut object = if body.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        if !is_json(req) {
            return Err(ApiError::unsupported_media_type());
        }
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(ApiError::bad_request("Request body must be a JSON object")),
            Err(e) => {
                return Err(ApiError::bad_request(format!(
                    "Request body is not valid JSON: {e}"
                )))
            }
        }
    };
    add_query(req, &mut object)?;
    Ok(object)
}

/// Adds the query-string parameters `object` lacks, as strings.
pub(crate) fn add_query(
    req: &HttpRequest,
    object: &mut Map<String, Value>,
) -> Result<(), ApiError> {
    let query = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map_err(|_| ApiError::bad_request("Query string is malformed"))?;
    for (key, value) in query.into_inner() {
        object.entry(key).or_insert(Value::String(value));
    }
    Ok(())
}

/// `application/json`, with or without parameters such as `; charset=utf-8`.
fn is_json(req: &HttpRequest) -> bool {
    has_media_type(req, "application/json")
}

/// Whether the `Content-Type` is `essence`, with or without parameters, in any case.
pub(crate) fn has_media_type(req: &HttpRequest, essence: &str) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|given| given.trim().eq_ignore_ascii_case(essence))
}

pub(crate) fn decode<T: DeserializeOwned>(object: Map<String, Value>) -> Result<T, ApiError> {
    refuse_unknown::<T>(&object)?;
    serde_path_to_error::deserialize(Value::Object(object))
        .map_err(|e| ApiError::bad_request(describe(&e.path().to_string(), &e.inner().to_string())))
}

/// How many unknown names one error lists; a hostile body could carry thousands.
const UNKNOWN_NAMES_SHOWN: usize = 10;

/// Refuses every parameter `T` does not name (its serde field names and aliases), so a typo
/// or a foreign spelling is an error instead of a field silently dropped.
fn refuse_unknown<T: DeserializeOwned>(object: &Map<String, Value>) -> Result<(), ApiError> {
    let known = serde_aux::serde_introspection::serde_introspect::<T>();
    let mut unknown: Vec<&str> = object
        .keys()
        .map(String::as_str)
        .filter(|name| !known.contains(name))
        .collect();
    unknown.sort_unstable();
    if unknown.is_empty() {
        return Ok(());
    }
    let mut names = unknown[..unknown.len().min(UNKNOWN_NAMES_SHOWN)].join(", ");
    if unknown.len() > UNKNOWN_NAMES_SHOWN {
        names.push_str(&format!(
            " (and {} more)",
            unknown.len() - UNKNOWN_NAMES_SHOWN
        ));
    }
    Err(ApiError::bad_request(format!("Unknown parameter: {names}")))
}

/// `name` inside the object at `path` (serde's path, which may already end with the name or
/// be `.` for the top level): `stages[1].icon`, or `name` at the top.
fn nested(path: &str, name: &str) -> String {
    let parent = path
        .strip_suffix(name)
        .unwrap_or(path)
        .trim_end_matches('.');
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// Turns serde's wording into the API's: `name must be a string`, `limit must be an integer`.
fn describe(field: &str, message: &str) -> String {
    if let Some((_, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split_once(", expected "))
    {
        // serde's names for JSON arrays and objects are not the API's.
        let expected = match expected {
            "a sequence" => "a list",
            "a map" => "an object",
            other => other,
        };
        return format!("{field} must be {expected}");
    }
    // A nested parameter object refuses its unknown fields too (`deny_unknown_fields`).
    if let Some(name) = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name)
    {
        return format!("Unknown parameter: {}", nested(field, name));
    }
    // A field given under two of its spellings (`name` and `title`).
    if let Some(name) = message
        .strip_prefix("duplicate field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name)
    {
        return format!(
            "{} is given twice (under two of its names)",
            nested(field, name)
        );
    }
    if message.starts_with("must be ") {
        return format!("{field} {message}");
    }
    format!("{field} is invalid: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{http::StatusCode, test::TestRequest, ResponseError};
    use serde::Deserialize;

    /// The parameters as sent: the query's length first, so a query and a body never run
    /// into each other; and nothing kept past `MAX_SENT_BYTES`.
    #[test]
    fn sent_parameters_are_told_apart_and_kept_only_when_short() {
        let sent = |uri: &str, body: &[u8]| {
            Sent::of(&TestRequest::post().uri(uri).to_http_request(), body)
        };
        let moved = [sent("/x?ab", b"c"), sent("/x?a", b"bc"), sent("/x", b"abc")];
        for (i, one) in moved.iter().enumerate() {
            assert!(one.is_some());
            for other in &moved[i + 1..] {
                assert_ne!(one, other, "the same bytes split otherwise");
            }
        }
        assert_eq!(sent("/x?a=1", b"{}"), sent("/x?a=1", b"{}"));
        let fits = vec![b' '; MAX_SENT_BYTES - 4];
        assert!(sent("/x", &fits).is_some());
        let over = vec![b' '; MAX_SENT_BYTES - 3];
        assert_eq!(sent("/x", &over), None, "one byte over");
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        name: Option<String>,
        #[serde(default, deserialize_with = "lenient::opt_i64")]
        limit: Option<i64>,
        #[serde(default, deserialize_with = "lenient::opt_bool")]
        is_public: Option<bool>,
    }

    async fn extract(req: TestRequest) -> Result<Probe, ApiError> {
        let (req, mut payload) = req.to_http_parts();
        Params::<Probe>::from_request(&req, &mut payload)
            .await
            .map(|p| p.0)
    }

    #[test]
    fn unknown_and_duplicate_fields_name_their_path() {
        assert_eq!(
            describe(
                "stages[1]",
                "unknown field `icon`, expected one of `name`, `meta`"
            ),
            "Unknown parameter: stages[1].icon"
        );
        assert_eq!(
            describe("stages[1].icon", "unknown field `icon`, expected `name`"),
            "Unknown parameter: stages[1].icon"
        );
        assert_eq!(
            describe(".", "duplicate field `name`"),
            "name is given twice (under two of its names)"
        );
        assert_eq!(
            describe("stages[0]", "duplicate field `name`"),
            "stages[0].name is given twice (under two of its names)"
        );
    }

    #[test]
    fn serde_names_for_arrays_and_objects_read_as_json_names() {
        assert_eq!(
            describe("ids", "invalid type: string \"x\", expected a sequence"),
            "ids must be a list"
        );
        assert_eq!(
            describe("meta", "invalid type: integer `5`, expected a map"),
            "meta must be an object"
        );
        assert_eq!(
            describe("name", "invalid type: integer `5`, expected a string"),
            "name must be a string"
        );
    }

    fn json(body: &str) -> TestRequest {
        TestRequest::post()
            .uri("/v1/x")
            .insert_header((CONTENT_TYPE, "application/json"))
            .set_payload(body.to_owned())
    }

    fn failure(result: Result<Probe, ApiError>) -> (StatusCode, String) {
        let err = result.unwrap_err();
        (err.status_code(), err.message().to_owned())
    }

    #[actix_web::test]
    async fn body_wins_over_the_query_string_and_query_fills_the_gaps() {
        let req = json(r#"{"name": "from body"}"#)
            .uri("/v1/x?name=from+query&limit=5&isPublic=true&limit=7");
        let probe = extract(req).await.unwrap();
        assert_eq!(
            probe,
            Probe {
                name: Some("from body".into()),
                limit: Some(5),
                is_public: Some(true),
            }
        );
    }

    #[actix_web::test]
    async fn an_empty_body_is_an_empty_object_whatever_its_type() {
        let probe = extract(TestRequest::post().uri("/v1/x?limit=3"))
            .await
            .unwrap();
        assert_eq!(probe.limit, Some(3));
        let probe = extract(
            TestRequest::post()
                .insert_header((CONTENT_TYPE, "text/plain"))
                .set_payload(" \n"),
        )
        .await
        .unwrap();
        assert_eq!(probe.name, None);
    }

    #[actix_web::test]
    async fn content_type_parameters_are_allowed() {
        let req = TestRequest::post()
            .insert_header((CONTENT_TYPE, "Application/JSON; charset=utf-8"))
            .set_payload(r#"{"limit": "12"}"#);
        assert_eq!(extract(req).await.unwrap().limit, Some(12));
    }

    #[actix_web::test]
    async fn a_non_json_content_type_with_a_body_is_415() {
        for content_type in [Some("text/plain"), Some("application/jsonx"), None] {
            let mut req = TestRequest::post().set_payload(r#"{"name": "x"}"#);
            if let Some(ct) = content_type {
                req = req.insert_header((CONTENT_TYPE, ct));
            }
            let (status, message) = failure(extract(req).await);
            assert_eq!(
                status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{content_type:?}"
            );
            assert_eq!(message, "Content-Type must be application/json");
        }
    }

    #[actix_web::test]
    async fn an_oversized_body_is_413_by_header_or_by_reading() {
        let big = format!(r#"{{"name": "{}"}}"#, "x".repeat(MAX_BODY_BYTES));
        let (status, message) = failure(extract(json(&big)).await);
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(message, "Request body is larger than 1 MiB");

        // A lying Content-Length is caught while reading.
        let req = json(&big).insert_header((CONTENT_LENGTH, "10"));
        assert_eq!(failure(extract(req).await).0, StatusCode::PAYLOAD_TOO_LARGE);

        // A declared size over the limit is refused before reading.
        let req = json("{}").insert_header((CONTENT_LENGTH, "1048577"));
        assert_eq!(failure(extract(req).await).0, StatusCode::PAYLOAD_TOO_LARGE);

        // Exactly 1 MiB is accepted.
        let padding = MAX_BODY_BYTES - r#"{"name": ""}"#.len();
        let exact = format!(r#"{{"name": "{}"}}"#, "y".repeat(padding));
        assert_eq!(exact.len(), MAX_BODY_BYTES);
        assert!(extract(json(&exact)).await.is_ok());
    }

    #[actix_web::test]
    async fn malformed_json_and_non_objects_are_400() {
        let (status, message) = failure(extract(json(r#"{"name": "#)).await);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(
            message.starts_with("Request body is not valid JSON: EOF while parsing"),
            "{message}"
        );
        for body in ["[1, 2]", "\"text\"", "42", "null"] {
            assert_eq!(
                failure(extract(json(body)).await),
                (
                    StatusCode::BAD_REQUEST,
                    "Request body must be a JSON object".to_owned()
                ),
                "{body}"
            );
        }
    }

    #[actix_web::test]
    async fn wrong_types_name_the_field() {
        let cases = [
            (r#"{"name": 5}"#, "name must be a string"),
            (r#"{"limit": 2.5}"#, "limit must be an integer"),
            (r#"{"limit": "abc"}"#, "limit must be an integer"),
            (r#"{"isPublic": "maybe"}"#, "isPublic must be a boolean"),
        ];
        for (body, expected) in cases {
            assert_eq!(
                failure(extract(json(body)).await),
                (StatusCode::BAD_REQUEST, expected.to_owned()),
                "{body}"
            );
        }
        let req = TestRequest::post().uri("/v1/x?limit=ten");
        assert_eq!(failure(extract(req).await).1, "limit must be an integer");
    }

    #[actix_web::test]
    async fn unknown_parameters_are_refused_by_name_from_body_and_query() {
        let (status, message) =
            failure(extract(json(r#"{"name": "n", "whatever": {"deep": [1]}}"#)).await);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(message, "Unknown parameter: whatever");

        let req = json(r#"{"nmae": "n", "limit": 1}"#).uri("/v1/x?isPublic=true&color=red");
        assert_eq!(
            failure(extract(req).await).1,
            "Unknown parameter: color, nmae"
        );
        // Wrong spelling of a known name is unknown too: names are exact.
        assert_eq!(
            failure(extract(json(r#"{"is_public": true}"#)).await).1,
            "Unknown parameter: is_public"
        );
    }

    #[actix_web::test]
    async fn a_flood_of_unknown_parameters_is_summarised() {
        let fields: Vec<String> = (0..500).map(|i| format!(r#""f{i:03}": 1"#)).collect();
        let message = failure(extract(json(&format!("{{{}}}", fields.join(",")))).await).1;
        assert_eq!(
            message,
            "Unknown parameter: f000, f001, f002, f003, f004, f005, f006, f007, f008, f009 (and 490 more)"
        );
    }

    #[actix_web::test]
    async fn known_parameters_pass() {
        let probe = extract(json(r#"{"name": "n", "isPublic": false}"#).uri("/v1/x?limit=2"))
            .await
            .unwrap();
        assert_eq!(probe.name.as_deref(), Some("n"));
        assert_eq!(probe.limit, Some(2));
    }
}
