//! The request body parser and everything behind it: any bytes, as the body of any operation,
//! with any of the content types a client might send, a query string, and the caller's key, a
//! subscriber token or nothing. Placeholders such as `$F` in the body become the ids of the
//! seeded objects, so generated requests reach real rows. Every reply must be well formed:
//! no 5xx, and every 4xx the JSON error body.
//!
//! Input: byte 0 picks the operation, byte 1 the credential and content type; the rest is
//! `?query\n` (optional) then the body.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sounding_fuzz::{assert_well_formed, block_on, post, send, world};

const CONTENT_TYPES: [Option<&str>; 6] = [
    Some("application/json"),
    Some("application/json; charset=utf-8"),
    Some("text/csv"),
    Some("text/plain"),
    None,
    Some("Application/JSON ; x=y"),
];

/// Every operation in the OpenAPI document, sorted.
fn operations() -> &'static [String] {
    static OPS: OnceLock<Vec<String>> = OnceLock::new();
    OPS.get_or_init(|| {
        let doc: Value = serde_json::from_str(&sounding_http_actix::openapi_json())
            .expect("the OpenAPI document is JSON");
        let mut ops: Vec<String> = doc["paths"]
            .as_object()
            .expect("paths")
            .keys()
            .filter(|p| p.starts_with("/v1/") && *p != "/v1/openapi.json")
            .cloned()
            .collect();
        ops.sort();
        ops
    })
}

fuzz_target!(|data: &[u8]| {
    let [op, mode, rest @ ..] = data else {
        return;
    };
    let world = world();
    let path = &operations()[usize::from(*op) % operations().len()];
    let bearer = match mode % 4 {
        0 => Some(world.owner_key.as_str()),
        1 => Some(world.token.as_str()),
        2 => None,
        _ => Some("not-a-credential"),
    };
    let content_type = CONTENT_TYPES[usize::from(mode / 4) % CONTENT_TYPES.len()];

    let (query, body) = match rest.strip_prefix(b"?") {
        Some(tail) => match tail.iter().position(|b| *b == b'\n') {
            Some(end) => (&tail[..end], &tail[end + 1..]),
            None => (tail, &[][..]),
        },
        None => (&[][..], rest),
    };
    // A query string the URI can carry at all: a request line cannot hold raw bytes.
    let query: String = String::from_utf8_lossy(query)
        .chars()
        .filter(|c| c.is_ascii_graphic() && *c != '#')
        .collect();
    // Only a query a request line can carry: a real client cannot send the rest.
    let with_query = format!("{path}?{query}");
    let uri = if !query.is_empty() && actix_web::http::Uri::try_from(with_query.as_str()).is_ok() {
        with_query
    } else {
        path.clone()
    };
    let body = substitute(body, &world.ids);

    let reply = block_on(send(&world, post(&uri, bearer, content_type, body)));
    assert_well_formed(&uri, &reply);
});

/// The body with each placeholder replaced by its id.
fn substitute(body: &[u8], ids: &[(&'static str, String)]) -> Vec<u8> {
    let mut out = body.to_vec();
    for (placeholder, id) in ids {
        let needle = placeholder.as_bytes();
        let mut replaced = Vec::with_capacity(out.len());
        let mut i = 0;
        while i < out.len() {
            if out[i..].starts_with(needle) {
                replaced.extend_from_slice(id.as_bytes());
                i += needle.len();
            } else {
                replaced.push(out[i]);
                i += 1;
            }
        }
        out = replaced;
    }
    out
}
