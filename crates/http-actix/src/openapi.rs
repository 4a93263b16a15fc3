//! The OpenAPI 3.1 document of the API, generated from the handlers' `#[utoipa::path]`
//! annotations and the DTOs' schemas. Paths are documented under `/v1` only; each is served
//! under `/api/v1` too. [`openapi_json`] renders it deterministically (keys sorted) so a
//! checked-in copy can be compared byte for byte.

use std::sync::OnceLock;

use actix_web::HttpResponse;
use serde_json::{Map, Value};
use utoipa::{
    openapi::{
        header::Header,
        response::{Response, ResponseBuilder},
        schema::{ObjectBuilder, Type},
        security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
        Components, Content, OpenApi as Document, Ref, RefOr, Required,
    },
    Modify, OpenApi,
};

use crate::{
    dto::{
        board::BoardMetaParams,
        common::{ErrorBody, NoParams},
        roadmap::StageMetaParams,
    },
    routes::{
        api_keys, automation, document_reactions, documents, feedback_boards, feedback_comments,
        feedback_csv, feedback_merge, feedback_votes, feedbacks, health, notifications, roadmaps,
        stages, subscribers, subscribers_admin, tags, teams, topic_comments, topic_votes, topics,
        users,
    },
};

const DESCRIPTION: &str = "\
Sounding collects product feedback for a team: boards, feedback with comments and votes, roadmaps with stages and topics, documents with reactions, subscribers.

Every operation is a `POST` to `/v1/<resource>.<action>` (team operations) or \
`/v1/public/<resource>.<action>` (public operations) with a JSON object as body; parameters \
may also be given in the query string (the body wins on a clash). Every operation is served \
under `/api/v1/...` as well, with identical behaviour.

Authentication: a team API key (`Authorization: Bearer <API_KEY>`) or a subscriber token \
(`Authorization: Bearer <SUBSCRIBER_JWT>`, or the `publicAccessToken` cookie) as each \
operation states.

Errors are `{\"error\": <message>, \"statusCode\": <status>}`. Every response under `/v1` and \
`/api/v1` carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; the \
limits are counted per API key, per subscriber, or per client address, in one-minute windows, \
by each server instance.";

#[derive(OpenApi)]
#[openapi(
    info(title = "Sounding API", description = DESCRIPTION, license(name = "Apache-2.0")),
    paths(
        teams::info,
        teams::update,
        subscribers::identify,
        subscribers::info,
        subscribers::logout,
        feedback_boards::create,
        feedback_boards::list,
        feedback_boards::info,
        feedback_boards::update,
        feedback_boards::delete,
        feedback_boards::public_list,
        feedbacks::create,
        feedbacks::update,
        feedbacks::list,
        feedbacks::info,
        feedbacks::publish,
        feedbacks::archive,
        feedbacks::restore,
        feedbacks::delete,
        feedbacks::public_list,
        feedbacks::public_create,
        feedbacks::public_info,
        feedbacks::public_update,
        feedbacks::public_delete,
        feedbacks::subscribe,
        feedbacks::unsubscribe,
        feedback_comments::create,
        feedback_comments::public_create,
        feedback_comments::public_list,
        feedback_comments::list,
        feedback_comments::update,
        feedback_comments::delete,
        feedback_votes::create,
        feedback_votes::delete,
        feedback_votes::info,
        feedback_votes::vote,
        feedback_votes::unvote,
        roadmaps::create,
        roadmaps::list,
        roadmaps::info,
        roadmaps::update,
        roadmaps::delete,
        stages::create,
        stages::update,
        stages::delete,
        stages::public_list,
        stages::public_info,
        topics::create,
        topics::list,
        topics::update,
        topics::delete,
        topics::public_create,
        topics::public_info,
        topics::subscribe,
        topics::unsubscribe,
        topic_comments::create,
        topic_comments::list,
        topic_comments::team_list,
        topic_comments::update,
        topic_comments::delete,
        topic_votes::create,
        topic_votes::delete,
        topic_votes::info,
        topic_votes::vote,
        topic_votes::unvote,
        automation::subscribe,
        automation::unsubscribe,
        automation::zapier_subscribe,
        automation::zapier_unsubscribe,
        automation::list,
        automation::deliveries,
        automation::redeliver,
        feedback_csv::export,
        feedback_csv::import,
        notifications::list,
        notifications::mark_read,
        documents::create,
        documents::list,
        documents::info,
        documents::update,
        documents::publish,
        documents::unpublish,
        documents::delete,
        documents::public_list,
        document_reactions::create,
        document_reactions::delete,
        tags::create,
        tags::list,
        tags::update,
        tags::delete,
        feedback_merge::merge,
        feedback_merge::count,
        subscribers_admin::list,
        subscribers_admin::info,
        subscribers_admin::update,
        subscribers_admin::delete,
        users::list,
        users::create,
        users::update,
        users::delete,
        api_keys::list,
        api_keys::create,
        api_keys::delete,
        health::healthz,
        health::readyz,
    ),
    components(schemas(ErrorBody, NoParams, BoardMetaParams, StageMetaParams)),
    modifiers(&Conventions),
    tags(
        (name = "teams", description = "The caller's team and its settings."),
        (name = "subscribers", description = "End users of the widget, and their sessions."),
        (name = "feedback-boards", description = "Boards that hold feedback."),
        (name = "feedbacks", description = "Feedback items: posted by subscribers or the team, moderated, archived."),
        (name = "feedback-comments", description = "Comments on feedback, public or private to the team."),
        (name = "feedback-votes", description = "Votes on feedback: one per subscriber per item."),
        (name = "roadmaps", description = "Roadmaps: sets of stages through which topics move."),
        (name = "stages", description = "Stages of a roadmap, ordered 1, 2, 3…; public or private."),
        (name = "topics", description = "Topics (feature requests) on roadmap stages."),
        (name = "topic-comments", description = "Threaded comments on topics."),
        (name = "topic-votes", description = "Votes on topics: one per subscriber per topic."),
        (name = "automation", description = "Webhook subscriptions and their signed, retried deliveries."),
        (name = "notifications", description = "What subscribers are told about the feedback and topics they follow."),
        (name = "documents", description = "Help articles and announcements, and subscribers' emoji reactions to them."),
        (name = "tags", description = "Coloured labels the team puts on feedback."),
        (name = "users", description = "The team's users and their roles."),
        (name = "api-keys", description = "The team's API keys: listed without the key, shown once on creation."),
        (name = "health", description = "Liveness and readiness probes; not rate limited."),
    ),
)]
struct ApiDoc;

/// The document as a value.
pub fn openapi_document() -> Document {
    ApiDoc::openapi()
}

/// The document as pretty JSON with sorted keys and a trailing newline.
pub fn openapi_json() -> String {
    let mut value = serde_json::to_value(openapi_document())
        .expect("the OpenAPI document is plain data and always serializes");
    crate::openapi_rules::apply(&mut value);
    crate::openapi_webhooks::add(&mut value);
    let mut text =
        serde_json::to_string_pretty(&sorted(value)).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// `GET /v1/openapi.json`.
pub async fn serve() -> HttpResponse {
    static JSON: OnceLock<String> = OnceLock::new();
    HttpResponse::Ok()
        .content_type("application/json")
        .body(JSON.get_or_init(openapi_json).as_str())
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted(v)))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The error responses every operation can give, beside those its annotation lists.
const COMMON_ERRORS: [(&str, &str, &str); 8] = [
    (
        "400",
        "BadRequest",
        "The parameters are invalid: malformed JSON, a body that is not an object, a field of \
         the wrong type (`name must be a string`), a malformed id (`id must be a UUID`).",
    ),
    (
        "401",
        "Unauthorized",
        "`Authentication required` (no credential, an unknown or revoked one, or the wrong kind \
         for the operation) or `Token expired`.",
    ),
    (
        "413",
        "PayloadTooLarge",
        "`Request body is larger than 1 MiB`.",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "`Content-Type must be application/json` (for a non-empty body).",
    ),
    (
        "429",
        "TooManyRequests",
        "`Too many requests`: the caller's rate limit is spent until `X-RateLimit-Reset`.",
    ),
    ("500", "InternalServerError", "`Internal server error`."),
    (
        "507",
        "InsufficientStorage",
        "`Insufficient storage: the database is full`: nothing was written; retry once space is freed.",
    ),
    (
        "503",
        "ServiceUnavailable",
        "`Service unavailable`: the database cannot be reached.",
    ),
];

/// Security schemes, the common error responses, and the rate-limit headers.
struct Conventions;

impl Modify for Conventions {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Components::new);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A team API key (38 characters): `Authorization: Bearer <API_KEY>`.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "subscriberToken",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A subscriber token from `public/subscriber.identify` (`code`): \
                         `Authorization: Bearer <SUBSCRIBER_JWT>`.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "subscriberCookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "publicAccessToken",
                "The subscriber token in a cookie; used when there is no bearer header.",
            ))),
        );
        for (code, name, description) in COMMON_ERRORS {
            let mut response = error_response(description);
            add_rate_limit_headers(&mut response, code == "429");
            components
                .responses
                .insert(name.to_owned(), RefOr::T(response));
        }

        for (path, item) in doc.paths.paths.iter_mut() {
            if !path.starts_with("/v1/") {
                continue;
            }
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.options,
                &mut item.head,
                &mut item.patch,
                &mut item.trace,
            ];
            for operation in operations.into_iter().flatten() {
                // An empty body stands for `{}`; required fields are checked one by one.
                if let Some(body) = operation.request_body.as_mut() {
                    body.required = Some(Required::False);
                }
                let responses = &mut operation.responses.responses;
                for response in responses.values_mut() {
                    if let RefOr::T(response) = response {
                        add_rate_limit_headers(response, false);
                    }
                }
                for (code, name, _) in COMMON_ERRORS {
                    responses.entry(code.to_owned()).or_insert_with(|| {
                        RefOr::Ref(Ref::new(format!("#/components/responses/{name}")))
                    });
                }
            }
        }
    }
}

fn error_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
}

fn integer_header(description: &str) -> Header {
    let mut header = Header::new(ObjectBuilder::new().schema_type(Type::Integer));
    header.description = Some(description.to_owned());
    header
}

fn add_rate_limit_headers(response: &mut Response, retry_after: bool) {
    let headers = &mut response.headers;
    headers.insert(
        "X-RateLimit-Limit".into(),
        integer_header("Requests allowed in the current one-minute window."),
    );
    headers.insert(
        "X-RateLimit-Remaining".into(),
        integer_header("Requests left in the current window."),
    );
    headers.insert(
        "X-RateLimit-Reset".into(),
        integer_header("When the current window ends, in Unix seconds."),
    );
    if retry_after {
        headers.insert(
            "Retry-After".into(),
            integer_header("Seconds until the window ends."),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_is_deterministic_sorted_and_ends_with_a_newline() {
        let a = openapi_json();
        assert_eq!(a, openapi_json());
        assert!(a.ends_with("}\n"));
        let value: Value = serde_json::from_str(&a).unwrap();
        assert_eq!(value["openapi"], "3.1.0");
        let keys: Vec<&String> = value["paths"].as_object().unwrap().keys().collect();
        let mut sorted_keys = keys.clone();
        sorted_keys.sort();
        assert_eq!(keys, sorted_keys);
    }

    #[test]
    fn every_operation_documents_errors_security_and_rate_limit_headers() {
        let value: Value = serde_json::from_str(&openapi_json()).unwrap();
        let paths = value["paths"].as_object().unwrap();
        let operations: Vec<_> = paths.keys().filter(|p| p.starts_with("/v1/")).collect();
        assert_eq!(operations.len(), 103);
        for path in operations {
            let op = &paths[path]["post"];
            assert!(
                op["security"].as_array().is_some_and(|s| !s.is_empty()),
                "{path}"
            );
            assert!(op["requestBody"].is_object(), "{path}");
            for code in [
                "200", "400", "401", "413", "415", "429", "500", "503", "507",
            ] {
                assert!(op["responses"][code].is_object(), "{path} lacks {code}");
            }
            let ok_headers = &op["responses"]["200"]["headers"];
            for header in [
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset",
            ] {
                assert!(ok_headers[header].is_object(), "{path} lacks {header}");
            }
        }
        let schemes = &value["components"]["securitySchemes"];
        assert_eq!(schemes["apiKey"]["scheme"], "bearer");
        assert_eq!(schemes["subscriberToken"]["bearerFormat"], "JWT");
        assert_eq!(schemes["subscriberCookie"]["in"], "cookie");
        assert_eq!(schemes["subscriberCookie"]["name"], "publicAccessToken");
        assert!(
            value["components"]["responses"]["TooManyRequests"]["headers"]["Retry-After"]
                .is_object()
        );
    }
}
