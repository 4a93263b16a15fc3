//! A small JSON client for the operations: every call is a POST with a JSON body, and the
//! reply keeps status, headers and the parsed body for assertions.

use reqwest::header::HeaderMap;
use serde_json::Value;

/// An operation's request, not yet sent: POST `/v1/<op>` on the server at `base` with a JSON
/// body and, when given, a bearer token.
pub fn op_request(
    client: &reqwest::Client,
    base: &str,
    op: &str,
    token: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let request = client.post(format!("{base}/v1/{op}")).json(body);
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

/// The JWT signing secret every test server uses, so tests can mint their own tokens.
pub const SECRET: &str = "black-box-test-secret-0123456789-abcdefghijklmnop";

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub async fn from_response(response: reqwest::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.expect("read response body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                panic!("response is not JSON: {}", String::from_utf8_lossy(&bytes))
            })
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    /// `body["data"]`, asserting a 200 first.
    pub fn ok(&self) -> &Value {
        assert_eq!(
            self.status, 200,
            "expected 200, got {}: {}",
            self.status, self.body
        );
        &self.body["data"]
    }

    /// Asserts status and the exact error body `{"error": message, "statusCode": status}`.
    pub fn assert_error(&self, status: u16, message: &str) {
        assert_eq!(
            (self.status, &self.body),
            (
                status,
                &serde_json::json!({"error": message, "statusCode": status})
            ),
            "unexpected reply"
        );
    }

    /// `field` of every item of `data`, asserting a 200 list of strings.
    pub fn each(&self, field: &str) -> Vec<&str> {
        let items = self.ok().as_array().expect("data is a list");
        items
            .iter()
            .map(|item| item[field].as_str().expect("a string field"))
            .collect()
    }

    /// Asserts an error with `status` (and the same `statusCode`), whatever its message, which
    /// is returned.
    pub fn assert_status(&self, status: u16) -> &str {
        assert_eq!(
            (self.status, &self.body["statusCode"]),
            (status, &serde_json::json!(status)),
            "unexpected reply: {}",
            self.body
        );
        self.body["error"].as_str().expect("an error message")
    }

    /// `pagination.total` of a 200 list reply.
    pub fn total(&self) -> i64 {
        self.ok();
        self.body["pagination"]["total"]
            .as_i64()
            .expect("pagination.total")
    }

    /// Asserts status and the exact body, for replies other than `{"error", "statusCode"}`.
    pub fn assert_body(&self, status: u16, body: Value) {
        assert_eq!(
            (self.status, &self.body),
            (status, &body),
            "unexpected reply"
        );
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// The names of an object's fields.
pub fn field_names(value: &Value) -> std::collections::BTreeSet<&str> {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"));
    object.keys().map(String::as_str).collect()
}

/// Asserts an RFC 3339 UTC timestamp with milliseconds: `2026-11-22T10:04:05.123Z`.
pub fn assert_timestamp(value: &Value) {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("not a timestamp: {value}"));
    assert!(
        text.len() == 24 && text.ends_with('Z') && text.as_bytes()[19] == b'.',
        "not an RFC 3339 timestamp with milliseconds: {text}"
    );
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{text} does not parse: {e}"));
}
