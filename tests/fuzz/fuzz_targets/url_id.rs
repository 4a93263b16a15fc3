//! Slugs, urlIds and ids: the domain's parsers on any string keep their promises, and the
//! lookups that take a client's urlId or slug answer well formed.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use sounding_domain::{
    ids::parse_uuid,
    slug::{
        is_valid_slug, slugify, title_slug, url_id_from_slug, url_path, TITLE_SLUG_MAX, URL_ID_LEN,
    },
};
use sounding_fuzz::{assert_well_formed, block_on, post, send, world};

/// What a slug is: `[a-z0-9]` words joined by single dashes.
fn is_slug_shaped(slug: &str) -> bool {
    !slug.is_empty()
        && !slug.starts_with('-')
        && !slug.ends_with('-')
        && !slug.contains("--")
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fuzz_target!(|raw: &str| {
    for max in [0, 1, 7, TITLE_SLUG_MAX, 100, usize::MAX] {
        if let Some(slug) = slugify(raw, max) {
            assert!(slug.len() <= max, "{raw:?} → {slug:?} longer than {max}");
            assert!(
                is_slug_shaped(&slug),
                "{raw:?} → {slug:?} is not slug-shaped"
            );
            assert!(
                is_valid_slug(&slug),
                "{slug:?} from {raw:?} is not a valid slug"
            );
            // Slugging a slug changes nothing.
            assert_eq!(slugify(&slug, max).as_deref(), Some(slug.as_str()));
        }
    }
    let title = title_slug(raw);
    assert!(is_slug_shaped(&title) && title.len() <= TITLE_SLUG_MAX);

    if let Some(id) = url_id_from_slug(raw) {
        assert_eq!(id.len(), URL_ID_LEN);
        assert!(raw.ends_with(id));
        assert!(id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    }
    // Whatever the title, the urlId comes back out of the url.
    assert_eq!(
        url_id_from_slug(&url_path(raw, "abcdefgh42")),
        Some("abcdefgh42")
    );

    if let Ok(uuid) = parse_uuid("id", raw) {
        assert_eq!(
            parse_uuid("id", &uuid.hyphenated().to_string()).ok(),
            Some(uuid)
        );
    }

    // The lookups by urlId and slug, through the API.
    let world = world();
    for (path, body, bearer) in [
        (
            "/v1/public/feedbacks.info",
            json!({"urlId": raw}),
            world.token.as_str(),
        ),
        (
            "/v1/feedbacks.info",
            json!({"urlId": raw}),
            world.owner_key.as_str(),
        ),
        (
            "/v1/public/topics.info",
            json!({"urlId": raw}),
            world.token.as_str(),
        ),
        (
            "/v1/feedback-boards.create",
            json!({"name": "Board", "slug": raw}),
            world.owner_key.as_str(),
        ),
    ] {
        let request = post(
            path,
            Some(bearer),
            Some("application/json"),
            body.to_string().into_bytes(),
        );
        let reply = block_on(send(&world, request));
        assert_well_formed(path, &reply);
    }
});
