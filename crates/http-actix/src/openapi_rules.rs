//! Rules of the request parameters that utoipa's derive cannot state, added to the rendered
//! document so it says exactly what the handlers accept (contract fuzzing checks both ways):
//! the UUID syntax every id field is parsed with, a body that is required whenever its schema
//! requires a field, and the parameters that take one of two fields.

use serde_json::{json, Value};

/// `ids::parse_uuid`: the hyphenated form in any letter case, surrounding whitespace trimmed.
pub const UUID_PATTERN: &str =
    r"^\s*[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\s*$";

/// `FeedbackStatus::parse`.
const FEEDBACK_STATUS_PATTERN: &str = "^(in_review|in_progress|planned|completed|closed)$";

/// How a parameter schema takes its subject from one of two fields.
enum Choice {
    /// Either field names it; with both, the first wins.
    Either,
    /// Exactly one of the two must be given.
    ExactlyOne,
}

/// Schemas whose subject comes from one of two string fields (the handler's own rule).
const ALTERNATIVES: &[(&str, &str, &str, Choice)] = &[
    ("FeedbackIdParams", "id", "feedbackId", Choice::Either),
    ("UpdateFeedbackParams", "id", "feedbackId", Choice::Either),
    ("MergeFeedbackParams", "id", "feedbackId", Choice::Either),
    ("FeedbackInfoParams", "id", "urlId", Choice::ExactlyOne),
    (
        "PublicFeedbackInfoParams",
        "feedbackId",
        "urlId",
        Choice::ExactlyOne,
    ),
];

/// Applies every rule to the whole document.
pub fn apply(doc: &mut Value) {
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (name, schema) in schemas.iter_mut() {
            if name.ends_with("Params") {
                add_uuid_patterns(schema);
            }
        }
        for (name, first, second, choice) in ALTERNATIVES {
            if let Some(schema) = schemas.get_mut(*name) {
                one_of_two(schema, first, second, choice);
            }
        }
        // On behalf of a subscriber: `give subscriberId or email, not both`.
        for name in [
            "TeamCommentParams",
            "OnBehalfVoteParams",
            "TopicOnBehalfVoteParams",
        ] {
            if let Some(params) = schemas.get_mut(name) {
                at_most_one(params, "subscriberId", "email");
            }
        }
        // Feedback lists take statuses by name.
        if let Some(statuses) = schemas
            .get_mut("FeedbackListParams")
            .and_then(|s| s.pointer_mut("/properties/status/items"))
        {
            statuses["pattern"] = json!(FEEDBACK_STATUS_PATTERN);
        }
        // `feedbacks.update` replaces the tags with these ids.
        if let Some(tags) = schemas
            .get_mut("UpdateFeedbackParams")
            .and_then(|s| s.pointer_mut("/properties/tagIds/items"))
        {
            *tags = json!({"type": "string", "format": "uuid", "pattern": UUID_PATTERN});
        }
        // `automation.unsubscribe`: by `id` (then nothing else is looked at), or by `target_url`
        // with `event`.
        if let Some(Value::Object(unsubscribe)) = schemas.get_mut("UnsubscribeParams") {
            let event = unsubscribe
                .get_mut("properties")
                .and_then(|p| p.get_mut("event"))
                .and_then(Value::as_object_mut)
                .and_then(|event| event.remove("pattern"))
                .unwrap_or(Value::Null);
            unsubscribe.insert(
                "anyOf".to_owned(),
                json!([
                    {"required": ["id"], "properties": {"id": {"type": "string", "pattern": UUID_PATTERN}}},
                    {
                        "required": ["target_url", "event"],
                        "properties": {
                            "target_url": {"type": "string"},
                            "event": {"type": "string", "pattern": event},
                        },
                    },
                ]),
            );
        }
        // `notifications.markRead` takes a list of at most 100 ids or `all: true`, not both.
        if let Some(Value::Object(mark_read)) = schemas.get_mut("MarkReadParams") {
            if let Some(ids) = mark_read
                .get_mut("properties")
                .and_then(|p| p.get_mut("ids"))
            {
                ids["maxItems"] = json!(100);
                ids["items"] = json!({"type": "string", "format": "uuid", "pattern": UUID_PATTERN});
            }
            mark_read.insert(
                "oneOf".to_owned(),
                json!([
                    {"required": ["ids"], "properties": {"ids": {"type": "array"}}},
                    {"required": ["all"], "properties": {"all": {"const": true}}},
                ]),
            );
        }
    }
    require_bodies_with_required_fields(doc);
}

fn add_uuid_patterns(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str) == Some("uuid") {
                map.entry("pattern").or_insert_with(|| json!(UUID_PATTERN));
            }
            for value in map.values_mut() {
                add_uuid_patterns(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(add_uuid_patterns),
        _ => {}
    }
}

fn one_of_two(schema: &mut Value, first: &str, second: &str, choice: &Choice) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|f| f != first && f != second);
        if required.is_empty() {
            map.remove("required");
        }
    }
    // `null` counts as absent in the handlers, so a branch wants a string, with the field's
    // own syntax; at the top level either may be null.
    let mut branches = Vec::new();
    for field in [first, second] {
        let Some(property) = map
            .get_mut("properties")
            .and_then(|p| p.get_mut(field))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let mut own = property.clone();
        own.insert("type".to_owned(), json!("string"));
        property.insert("type".to_owned(), json!(["string", "null"]));
        if matches!(choice, Choice::Either) && field == second {
            // With both given the first wins and the second is not looked at.
            property.remove("format");
            property.remove("pattern");
        }
        branches.push(json!({"required": [field], "properties": {field: own}}));
    }
    let key = match choice {
        Choice::Either => "anyOf",
        Choice::ExactlyOne => "oneOf",
    };
    map.insert(key.to_owned(), Value::Array(branches));
}

/// `not: {both given}` for two fields of which at most one may be given (null is absent).
fn at_most_one(schema: &mut Value, first: &str, second: &str) {
    if let Some(map) = schema.as_object_mut() {
        map.insert(
            "not".to_owned(),
            json!({
                "required": [first, second],
                "properties": {first: {"type": "string"}, second: {"type": "string"}},
            }),
        );
    }
}

/// An empty body stands for `{}` (decisions §1), so a body is optional exactly when `{}` is a
/// valid value of its schema.
fn require_bodies_with_required_fields(doc: &mut Value) {
    let schemas = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            let Some(body) = operation.get_mut("requestBody") else {
                continue;
            };
            let needs_fields = body
                .pointer("/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .and_then(|name| schemas.get(name))
                .is_some_and(empty_object_is_invalid);
            if needs_fields {
                body["required"] = Value::Bool(true);
            }
        }
    }
}

fn empty_object_is_invalid(schema: &Value) -> bool {
    let non_empty = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    non_empty("required") || non_empty("anyOf") || non_empty("oneOf")
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    fn schema(doc: &Value, name: &str) -> Map<String, Value> {
        doc["components"]["schemas"][name]
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn id_fields_of_parameters_carry_the_uuid_syntax() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let id = &schema(&doc, "IdParams")["properties"]["id"];
        assert_eq!(id["pattern"], UUID_PATTERN);
        // Responses describe what the server sends; they keep the plain format.
        let roadmap = &schema(&doc, "RoadmapDto")["properties"]["id"];
        assert!(roadmap.get("pattern").is_none());
    }

    #[test]
    fn a_body_is_required_exactly_when_its_schema_requires_a_field() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let body = |op: &str| doc["paths"][op]["post"]["requestBody"]["required"].clone();
        assert_eq!(body("/v1/roadmaps.info"), json!(true));
        assert_eq!(body("/v1/feedbacks.delete"), json!(true));
        assert_eq!(body("/v1/roadmaps.list"), json!(false));
    }

    #[test]
    fn either_field_names_the_feedback_item() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let ids = schema(&doc, "FeedbackIdParams");
        assert!(ids.get("required").is_none());
        assert_eq!(ids["anyOf"][1]["required"], json!(["feedbackId"]));
        assert_eq!(
            schema(&doc, "FeedbackInfoParams")["oneOf"][1]["required"],
            json!(["urlId"])
        );
    }
}
