//! The JWT extractor: any Authorization header, and tokens built from any header and claims
//! (signed with the right secret, with another, or unsigned with `alg: none`). The codec
//! accepts only what it issued, and the API answers every such request well formed.
//!
//! Input: byte 0 picks the mode; the rest is the raw header value, or a JSON header and JSON
//! claims separated by a 0xFF byte.

#![no_main]

use actix_web::{http::header::HeaderValue, test::TestRequest};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use libfuzzer_sys::fuzz_target;
use sounding_domain::{ports::TokenCodec, Timestamp};
use sounding_fuzz::{assert_well_formed, block_on, send, world, NOW, SECRET};
use sounding_http_actix::JwtCodec;

/// URL-safe base64 without padding, as JWTs use.
fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fuzz_target!(|data: &[u8]| {
    let [mode, rest @ ..] = data else {
        return;
    };
    let world = world();
    let codec = JwtCodec::new(&SECRET).expect("secret");
    let now = Timestamp::from_unix_seconds(NOW).expect("time");
    let ours = codec
        .verify(&world.token, now)
        .expect("the world's token verifies");

    let header_value: Vec<u8> = match mode % 3 {
        // Raw bytes as the whole header value.
        0 => rest.to_vec(),
        // `Bearer` and a token made of the input's header and claims, unsigned (`alg: none`
        // style: an empty signature) or with a signature that is not ours.
        1 | 2 => {
            let (header, claims) = match rest.iter().position(|b| *b == 0xFF) {
                Some(at) => (&rest[..at], &rest[at + 1..]),
                None => (&b"{\"alg\":\"none\",\"typ\":\"JWT\"}"[..], rest),
            };
            let signature = if mode % 3 == 1 {
                String::new()
            } else {
                b64url(b"forged")
            };
            format!("Bearer {}.{}.{signature}", b64url(header), b64url(claims)).into_bytes()
        }
        _ => unreachable!(),
    };

    if let Some(token) = std::str::from_utf8(&header_value)
        .ok()
        .map(|v| v.strip_prefix("Bearer ").unwrap_or(v))
    {
        // Only a token we issued verifies, and then only as what we issued.
        if let Ok(claims) = codec.verify(token, now) {
            assert_eq!(claims, ours, "{token:?} verified as someone else");
        }
    }

    let Ok(value) = HeaderValue::from_bytes(&header_value) else {
        return;
    };
    for path in [
        "/v1/public/subscriber.info",
        "/v1/teams.info",
        "/v1/public/feedbacks.list",
    ] {
        let request = TestRequest::post()
            .uri(path)
            .insert_header(("authorization", value.clone()))
            .insert_header(("content-type", "application/json"))
            .set_payload("{}");
        let reply = block_on(send(&world, request));
        assert_well_formed(path, &reply);
        if reply.status.is_success() && path != "/v1/public/feedbacks.list" {
            // Authenticated: only with the world's own credentials.
            let text = String::from_utf8_lossy(&header_value);
            assert!(
                text.contains(&world.token) || text.contains(&world.owner_key),
                "{path} accepted {text:?}"
            );
        }
    }
});
