//! A small JSON client for the operations: every call is a POST with a JSON body, and the
//! reply keeps status, headers and the parsed body for assertions.

use reqwest::header::HeaderMap;
use serde_json::Value;

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

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}
