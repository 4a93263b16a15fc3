//! The document's `webhooks` section (OpenAPI 3.1): every event the service delivers to a
//! subscribed target, as the `POST` it receives — the payload `{event, teamId, occurredAt,
//! <ids>, data}` (decisions §6) with `data` the resource as the API returns it, the Standard
//! Webhooks headers, and what the answer means. utoipa 5 has no `webhooks`, so this is added
//! to the rendered document; a test keeps it in step with `EventKind::ALL`.

use serde_json::{json, Map, Value};
use sounding_domain::{event::EventKind, feedback::FeedbackStatus};

/// One field beside `event`, `teamId` and `occurredAt`: its name, whether every payload has
/// it, what it says, and its shape.
struct Field {
    name: &'static str,
    required: bool,
    description: &'static str,
    shape: Shape,
}

#[derive(Clone, Copy)]
enum Shape {
    Uuid,
    /// A feedback status.
    Status,
    Flag,
}

const fn id(name: &'static str, description: &'static str) -> Field {
    Field {
        name,
        required: true,
        description,
        shape: Shape::Uuid,
    }
}

const FEEDBACK: Field = id("feedbackId", "The feedback item.");
const TOPIC: Field = id("topicId", "The topic.");
const COMMENT: Field = id("commentId", "The new comment.");
const VOTE: Field = id("voteId", "The new vote.");
const VOTER: Field = id("subscriberId", "The subscriber who voted.");
const COMMENTER: Field = id("subscriberId", "The subscriber who wrote the comment.");
const GONE_COMMENT: Field = id("commentId", "The deleted comment.");
const ON_BEHALF: Field = Field {
    name: "onBehalf",
    required: true,
    description: "True when the team cast the vote for the subscriber (`feedbacks.vote`, \
                  `topics.vote`); false for the subscriber's own.",
    shape: Shape::Flag,
};

/// What one event is: its payload schema's name, what it announces, its ids, and the schema
/// of `data`.
struct Event {
    kind: EventKind,
    schema: &'static str,
    summary: &'static str,
    fields: &'static [Field],
    data: &'static str,
}

const EVENTS: &[Event] = &[
    Event {
        kind: EventKind::NewFeedback,
        schema: "NewFeedbackEvent",
        summary: "A feedback item was created and published (team, subscriber or CSV import); \
                  an item held for moderation announces itself when approved.",
        fields: &[FEEDBACK],
        data: "FeedbackJson",
    },
    Event {
        kind: EventKind::NewFeedbackVote,
        schema: "NewFeedbackVoteEvent",
        summary: "A subscriber voted for a feedback item, or the team voted on their behalf. \
                  Removing a vote sends nothing.",
        fields: &[FEEDBACK, VOTE, VOTER, ON_BEHALF],
        data: "VoteJson",
    },
    Event {
        kind: EventKind::FeedbackStatusChange,
        schema: "FeedbackStatusChangeEvent",
        summary: "A feedback item's status changed (sent beside `feedbacks.update`).",
        fields: &[
            FEEDBACK,
            Field {
                name: "previousStatus",
                required: true,
                description: "The status before the change.",
                shape: Shape::Status,
            },
            Field {
                name: "status",
                required: true,
                description: "The status now.",
                shape: Shape::Status,
            },
        ],
        data: "FeedbackJson",
    },
    Event {
        kind: EventKind::FeedbacksCreate,
        schema: "FeedbacksCreateEvent",
        summary: "A subscriber posted a feedback item (`public/feedbacks.create`).",
        fields: &[FEEDBACK],
        data: "FeedbackJson",
    },
    Event {
        kind: EventKind::FeedbacksUpdate,
        schema: "FeedbacksUpdateEvent",
        summary: "A feedback item changed: an update, publish, archive, restore, moderation, or \
                  a merge (one event for each of the two items).",
        fields: &[
            FEEDBACK,
            Field {
                name: "mergedFeedbackId",
                required: false,
                description: "On a merge, in the target's event: the item merged into it.",
                shape: Shape::Uuid,
            },
            Field {
                name: "mergedIntoFeedbackId",
                required: false,
                description: "On a merge, in the merged item's event: the item it went into.",
                shape: Shape::Uuid,
            },
        ],
        data: "FeedbackJson",
    },
    Event {
        kind: EventKind::FeedbacksDelete,
        schema: "FeedbacksDeleteEvent",
        summary: "A feedback item was deleted; `data` is the item as it was.",
        fields: &[FEEDBACK],
        data: "FeedbackJson",
    },
    Event {
        kind: EventKind::FeedbackCommentsCreate,
        schema: "FeedbackCommentsCreateEvent",
        summary: "A comment was added to a feedback item (public or private to the team).",
        fields: &[COMMENT, FEEDBACK, COMMENTER],
        data: "CommentJson",
    },
    Event {
        kind: EventKind::FeedbackCommentsDelete,
        schema: "FeedbackCommentsDeleteEvent",
        summary: "The team deleted a comment of a feedback item; `data` is the comment as it \
                  was.",
        fields: &[GONE_COMMENT, FEEDBACK, COMMENTER],
        data: "CommentJson",
    },
    Event {
        kind: EventKind::TopicsCreate,
        schema: "TopicsCreateEvent",
        summary: "A topic was created on a roadmap stage.",
        fields: &[TOPIC],
        data: "TopicJson",
    },
    Event {
        kind: EventKind::TopicsUpdate,
        schema: "TopicsUpdateEvent",
        summary: "A topic changed (including a move to another stage).",
        fields: &[TOPIC],
        data: "TopicJson",
    },
    Event {
        kind: EventKind::TopicCommentsCreate,
        schema: "TopicCommentsCreateEvent",
        summary: "A subscriber commented on a topic.",
        fields: &[COMMENT, TOPIC, COMMENTER],
        data: "TopicCommentJson",
    },
    Event {
        kind: EventKind::TopicCommentsDelete,
        schema: "TopicCommentsDeleteEvent",
        summary: "The team deleted a comment of a topic; `data` is the comment as it was (a \
                  comment with replies stays as a tombstone, see `deletedAt`).",
        fields: &[GONE_COMMENT, TOPIC, COMMENTER],
        data: "TopicCommentJson",
    },
    Event {
        kind: EventKind::TopicVotesCreate,
        schema: "TopicVotesCreateEvent",
        summary: "A subscriber voted for a topic, or the team voted on their behalf. Removing \
                  a vote sends nothing.",
        fields: &[TOPIC, VOTE, VOTER, ON_BEHALF],
        data: "TopicVoteJson",
    },
];

const DELIVERY: &str = "\
Sent as `POST <targetUrl>` to each subscription of the team to this event \
(`automation.subscribe`), at least once: treat a repeated `webhook-id` as a duplicate. The \
signature follows Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 \
of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the \
subscription's secret after `whsec_`.";

/// Adds `webhooks` and the payload schemas to the rendered document.
pub fn add(doc: &mut Value) {
    let mut webhooks = Map::new();
    for event in EVENTS {
        let name = event.kind.as_str();
        doc["components"]["schemas"][event.schema] = payload_schema(event);
        webhooks.insert(
            name.to_owned(),
            json!({"post": {
                "operationId": format!("webhook.{name}"),
                "summary": event.summary,
                "description": DELIVERY,
                "tags": ["automation"],
                "parameters": headers(),
                "requestBody": {
                    "required": true,
                    "content": {"application/json": {"schema": {
                        "$ref": format!("#/components/schemas/{}", event.schema),
                    }}},
                },
                "responses": responses(),
            }}),
        );
    }
    doc["webhooks"] = Value::Object(webhooks);
}

fn payload_schema(event: &Event) -> Value {
    let name = event.kind.as_str();
    let mut properties = Map::new();
    let mut required = vec![json!("event"), json!("teamId"), json!("occurredAt")];
    properties.insert(
        "event".to_owned(),
        json!({"type": "string", "const": name, "description": "The event's name."}),
    );
    properties.insert(
        "teamId".to_owned(),
        json!({"type": "string", "format": "uuid", "description": "The team it happened in."}),
    );
    properties.insert(
        "occurredAt".to_owned(),
        json!({"type": "string", "format": "date-time", "description": "When it happened."}),
    );
    for field in event.fields {
        let schema = match field.shape {
            Shape::Status => {
                let statuses: Vec<&str> = FeedbackStatus::ALL.iter().map(|s| s.as_str()).collect();
                json!({"type": "string", "enum": statuses, "description": field.description})
            }
            Shape::Uuid => {
                json!({"type": "string", "format": "uuid", "description": field.description})
            }
            Shape::Flag => json!({"type": "boolean", "description": field.description}),
        };
        properties.insert(field.name.to_owned(), schema);
        if field.required {
            required.push(json!(field.name));
        }
    }
    properties.insert(
        "data".to_owned(),
        json!({"$ref": format!("#/components/schemas/{}", event.data)}),
    );
    required.push(json!("data"));
    json!({
        "type": "object",
        "description": format!(
            "The body of a `{name}` delivery: `data` is the {} as the API returns it.",
            match event.data {
                "FeedbackJson" => "feedback item",
                "VoteJson" | "TopicVoteJson" => "vote",
                "CommentJson" | "TopicCommentJson" => "comment",
                _ => "topic",
            }
        ),
        "properties": properties,
        "required": required,
    })
}

fn headers() -> Value {
    json!([
        header(
            "webhook-id",
            "The delivery's id, the same on every attempt of it \
             (`automation.deliveries` lists it as `id`).",
            json!({"type": "string", "format": "uuid"}),
        ),
        header(
            "webhook-timestamp",
            "When this attempt was signed, in Unix seconds.",
            json!({"type": "string", "pattern": "^[0-9]+$"}),
        ),
        header(
            "webhook-signature",
            "`v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>.<body>\">`.",
            json!({"type": "string", "pattern": "^v1,[A-Za-z0-9+/]+=*$"}),
        ),
        header(
            "user-agent",
            "`Sounding-Webhooks/<version>`.",
            json!({"type": "string", "pattern": "^Sounding-Webhooks/"}),
        ),
    ])
}

/// One required header of every delivery.
fn header(name: &str, description: &str, schema: Value) -> Value {
    json!({
        "name": name,
        "in": "header",
        "required": true,
        "description": description,
        "schema": schema,
    })
}

fn responses() -> Value {
    json!({
        "2XX": {"description": "Delivered: no more attempts."},
        "410": {"description": "Gone: the subscription is removed and the delivery fails."},
        "default": {
            "description": "Any other answer, a 3xx (never followed), a timeout (10 s, 5 s to \
                            connect) or a connection error is a failed attempt, retried after \
                            about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h and 8 h, for \
                            at most 24 h; a longer `Retry-After` on 429 or 503 is honoured.",
        },
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_event_kind_is_described_once_with_its_payload() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let webhooks = doc["webhooks"].as_object().unwrap();
        let described: BTreeSet<&str> = webhooks.keys().map(String::as_str).collect();
        let kinds: BTreeSet<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(described, kinds);
        for (name, hook) in webhooks {
            let reference = hook["post"]["requestBody"]["content"]["application/json"]["schema"]
                ["$ref"]
                .as_str()
                .unwrap();
            let schema_name = reference.strip_prefix("#/components/schemas/").unwrap();
            let schema = &doc["components"]["schemas"][schema_name];
            assert_eq!(schema["properties"]["event"]["const"], *name);
            let data = schema["properties"]["data"]["$ref"].as_str().unwrap();
            let data_name = data.strip_prefix("#/components/schemas/").unwrap();
            assert!(
                doc["components"]["schemas"][data_name].is_object(),
                "{name}: {data} is not in the document"
            );
            let headers: Vec<&str> = hook["post"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["name"].as_str().unwrap())
                .collect();
            for header in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
                assert!(headers.contains(&header), "{name} lacks {header}");
            }
        }
    }
}
