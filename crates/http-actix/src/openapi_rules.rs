//! Rules of the request parameters that utoipa's derive cannot state, added to the rendered
//! document so it says exactly what the handlers accept (contract fuzzing checks both ways):
//! the UUID syntax every id field is parsed with, parameter objects that take no other fields,
//! free-form objects that say they take any keys, a body that is required whenever its schema
//! requires a field, and the parameters that take one of two fields.
//!
//! Conditional rules are written as `if`/`then`/`else` (or `not`) beside the properties, never
//! as a top-level `anyOf`/`oneOf`: client generators (openapi-python-client, openapi-typescript)
//! turn such a union into several types and lose the properties, while they skip conditionals.
//! The description says the rule in words for the people reading the generated client.

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

/// Names a parameter object accepts beside its fields (serde `alias`): (schema, alias, field).
/// The document lists each as a property of its own, as the server takes no other names.
const ALIASES: &[(&str, &str, &str)] = &[
    ("SubscribeParams", "targetUrl", "target_url"),
    ("UnsubscribeParams", "targetUrl", "target_url"),
    // Userorbit's spellings (docs/api.md, "Userorbit compatibility").
    ("CreateStageParams", "title", "name"),
    ("UpdateStageParams", "title", "name"),
    ("InlineStageParams", "title", "name"),
    ("CreateRoadmapParams", "private", "isPrivate"),
    ("OnBehalfVoteParams", "id", "feedbackId"),
    ("TopicOnBehalfVoteParams", "topicId", "id"),
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
        // `feedbacks.create`: `creatorId` names an existing subscriber, so it comes without
        // `creatorEmail` and `creatorName`.
        if let Some(create) = schemas.get_mut("CreateFeedbackParams") {
            forbid_together(create, "creatorId", "creatorEmail");
            forbid_together(create, "creatorId", "creatorName");
        }
        // A flag spelled Userorbit's way is refused beside the `meta` key it stands for.
        for (name, alias, key) in [
            ("CreateBoardParams", "public", "isPublic"),
            ("UpdateBoardParams", "public", "isPublic"),
            ("CreateStageParams", "private", "isPrivate"),
            ("UpdateStageParams", "private", "isPrivate"),
            ("InlineStageParams", "private", "isPrivate"),
        ] {
            if let Some(schema) = schemas.get_mut(name) {
                add_not(
                    schema,
                    json!({
                        "required": [alias, "meta"],
                        "properties": {
                            alias: {"type": "boolean"},
                            "meta": {"type": "object", "required": [key],
                                     "properties": {key: {"type": "boolean"}}},
                        },
                    }),
                );
            }
        }
        // After the rules above: an alias adds to a schema's `not` instead of replacing it.
        for (name, alias, field) in ALIASES {
            if let Some(schema) = schemas.get_mut(*name) {
                add_alias(schema, alias, field);
            }
        }
        // Feedback lists take statuses by name.
        for list in ["FeedbackListParams", "PublicFeedbackListParams"] {
            if let Some(statuses) = schemas
                .get_mut(list)
                .and_then(|s| s.pointer_mut("/properties/status/items"))
            {
                statuses["pattern"] = json!(FEEDBACK_STATUS_PATTERN);
            }
        }
        // `feedbacks.create` and `feedbacks.update` take tags by id.
        for params in ["CreateFeedbackParams", "UpdateFeedbackParams"] {
            if let Some(tags) = schemas
                .get_mut(params)
                .and_then(|s| s.pointer_mut("/properties/tagIds/items"))
            {
                *tags = json!({"type": "string", "format": "uuid", "pattern": UUID_PATTERN});
            }
        }
        // `automation.unsubscribe`: by `id` (then nothing else is looked at), or by `target_url`
        // (or its alias `targetUrl`) with `event`.
        if let Some(Value::Object(unsubscribe)) = schemas.get_mut("UnsubscribeParams") {
            let event = unsubscribe
                .get_mut("properties")
                .and_then(|p| p.get_mut("event"))
                .and_then(Value::as_object_mut)
                .and_then(|event| event.remove("pattern"))
                .unwrap_or(Value::Null);
            unsubscribe.insert(
                "if".to_owned(),
                json!({"properties": {"id": {"type": "null"}}}),
            );
            unsubscribe.insert(
                "then".to_owned(),
                json!({
                    "required": ["event"],
                    "properties": {"event": {"type": "string", "pattern": event}},
                    "anyOf": [
                        {"required": ["target_url"], "properties": {"target_url": {"type": "string"}}},
                        {"required": ["targetUrl"], "properties": {"targetUrl": {"type": "string"}}},
                    ],
                }),
            );
            append_description(
                unsubscribe,
                "Give `id`, or `target_url` and `event` (`id` wins when given).",
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
                "if".to_owned(),
                json!({"required": ["ids"], "properties": {"ids": {"type": "array"}}}),
            );
            mark_read.insert(
                "then".to_owned(),
                json!({"properties": {"all": {"enum": [false, null]}}}),
            );
            mark_read.insert(
                "else".to_owned(),
                json!({"required": ["all"], "properties": {"all": {"const": true}}}),
            );
        }
    }
    close_parameter_objects(doc);
    open_free_form_objects(doc);
    require_bodies_with_required_fields(doc);
}

/// The schemas of the operations' JSON bodies, by name.
fn body_schema_names(doc: &Value) -> Vec<String> {
    let mut names = Vec::new();
    let paths = doc.get("paths").and_then(Value::as_object).into_iter();
    for item in paths.flat_map(|p| p.values()) {
        let operations = item.as_object().into_iter().flat_map(|i| i.values());
        for operation in operations {
            let name = operation
                .pointer("/requestBody/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"));
            if let Some(name) = name.filter(|n| !names.iter().any(|known| known == n)) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// Every operation's parameter object takes only the fields it names (item 1 of issue 18:
/// the server answers `400 Unknown parameter: <name>` for any other). Objects nested in
/// them (`meta`) keep their own rule.
fn close_parameter_objects(doc: &mut Value) {
    let names = body_schema_names(doc);
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for name in names {
        if let Some(Value::Object(schema)) = schemas.get_mut(&name) {
            schema
                .entry("additionalProperties")
                .or_insert(Value::Bool(false));
        }
    }
}

/// An object schema with no properties is free-form (`meta`, a team's settings blob): it
/// says so with `additionalProperties: true`, so generators type it as a map of any JSON
/// values rather than as an object that has no keys.
fn open_free_form_objects(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
                _ => false,
            };
            let described = [
                "properties",
                "additionalProperties",
                "patternProperties",
                "$ref",
            ]
            .iter()
            .any(|key| map.contains_key(*key));
            if is_object && !described {
                map.insert("additionalProperties".to_owned(), Value::Bool(true));
            }
            for (key, child) in map.iter_mut() {
                // Property names and examples are data, not schemas.
                if key != "example" && key != "examples" && key != "const" && key != "enum" {
                    open_free_form_objects(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(open_free_form_objects),
        _ => {}
    }
}

/// A parameter object's alias: a property of its own with the field's schema. Both names at
/// once are refused (serde: `duplicate field`); a required field may come under either.
fn add_alias(schema: &mut Value, alias: &str, field: &str) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(mut own) = properties.get(field).cloned() else {
        return;
    };
    if let Some(own) = own.as_object_mut() {
        own.remove("example");
        own.insert(
            "description".to_owned(),
            json!(format!("Another name for `{field}`.")),
        );
    }
    properties.insert(alias.to_owned(), own);
    let both = json!({"required": [field, alias]});
    let not = match map.remove("not") {
        Some(other) => json!({"anyOf": [other, both]}),
        None => both,
    };
    map.insert("not".to_owned(), not);
    if let Some(Value::Array(required)) = map.get_mut("required") {
        if required.iter().any(|f| f == field) {
            required.retain(|f| f != field);
            if required.is_empty() {
                map.remove("required");
            }
            assert!(
                !map.contains_key("if"),
                "a schema with another condition cannot take a required alias yet"
            );
            map.insert("if".to_owned(), json!({"required": [alias]}));
            map.insert("else".to_owned(), json!({"required": [field]}));
        }
    }
}

fn append_description(schema: &mut serde_json::Map<String, Value>, sentence: &str) {
    let text = match schema.get("description").and_then(Value::as_str) {
        Some(own) if !own.is_empty() => format!("{own}\n\n{sentence}"),
        _ => sentence.to_owned(),
    };
    schema.insert("description".to_owned(), Value::String(text));
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

/// The rule as `if` the first is absent or null, `then` the second is required (with its own
/// syntax) and, for `ExactlyOne`, `else` the second is absent or null. `null` counts as
/// absent in the handlers, so at the top level either may be null.
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
    let mut second_own = json!({"type": "string"});
    for field in [first, second] {
        let Some(property) = map
            .get_mut("properties")
            .and_then(|p| p.get_mut(field))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        if field == second {
            second_own = Value::Object(property.clone());
            second_own["type"] = json!("string");
        }
        property.insert("type".to_owned(), json!(["string", "null"]));
        if matches!(choice, Choice::Either) && field == second {
            // With both given the first wins and the second is not looked at.
            property.remove("format");
            property.remove("pattern");
        }
    }
    map.insert(
        "if".to_owned(),
        json!({"properties": {first: {"type": "null"}}}),
    );
    map.insert(
        "then".to_owned(),
        json!({"required": [second], "properties": {second: second_own}}),
    );
    let words = match choice {
        Choice::Either => {
            format!("Give `{first}` or `{second}` (with both, `{first}` is used).")
        }
        Choice::ExactlyOne => {
            map.insert(
                "else".to_owned(),
                json!({"properties": {second: {"type": "null"}}}),
            );
            format!("Give exactly one of `{first}` and `{second}`.")
        }
    };
    let said = map
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.contains(&format!("`{second}`")));
    if !said {
        append_description(map, &words);
    }
}

/// `not: {both given}` for two fields of which at most one may be given (null is absent).
/// Adds "not both `first` and `second` as strings" to the schema's `not` (null stands for
/// absent, so nulls pass).
fn forbid_together(schema: &mut Value, first: &str, second: &str) {
    let both = json!({
        "required": [first, second],
        "properties": {first: {"type": "string"}, second: {"type": "string"}},
    });
    add_not(schema, both);
}

/// Adds `both` to what the schema's `not` forbids.
fn add_not(schema: &mut Value, both: Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let not = match map.remove("not") {
        Some(Value::Object(other)) if other.contains_key("anyOf") => {
            let mut any = other["anyOf"].as_array().cloned().unwrap_or_default();
            any.push(both);
            json!({"anyOf": any})
        }
        Some(other) => json!({"anyOf": [other, both]}),
        None => both,
    };
    map.insert("not".to_owned(), not);
}

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
    let requires = |schema: &Value, key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    // `{}` meets an `if` that requires nothing (its `properties` hold vacuously), and then
    // has to meet `then`; otherwise it has to meet `else`.
    let branch = match schema.get("if") {
        Some(condition) if requires(condition, "required") => schema.get("else"),
        Some(_) => schema.get("then"),
        None => None,
    };
    requires(schema, "required")
        || requires(schema, "anyOf")
        || requires(schema, "oneOf")
        || branch.is_some_and(|b| requires(b, "required") || requires(b, "anyOf"))
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
    fn either_field_names_the_feedback_item_without_a_union() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let ids = schema(&doc, "FeedbackIdParams");
        assert!(ids.get("required").is_none());
        assert!(ids.get("anyOf").is_none() && ids.get("oneOf").is_none());
        assert_eq!(ids["if"], json!({"properties": {"id": {"type": "null"}}}));
        assert_eq!(ids["then"]["required"], json!(["feedbackId"]));
        assert_eq!(
            ids["then"]["properties"]["feedbackId"]["pattern"],
            UUID_PATTERN
        );
        assert!(ids.get("else").is_none(), "with both, id wins");
        let info = schema(&doc, "FeedbackInfoParams");
        assert_eq!(info["then"]["required"], json!(["urlId"]));
        assert_eq!(
            info["else"],
            json!({"properties": {"urlId": {"type": "null"}}})
        );
        let update = schema(&doc, "UpdateFeedbackParams");
        let said = update["description"].as_str().unwrap();
        assert!(said.ends_with("Give `id` or `feedbackId` (with both, `id` is used)."));
    }

    /// No component schema of the document is a union at its top level: generators make a
    /// type per branch and lose the properties beside it (issue 18).
    #[test]
    fn no_schema_with_properties_is_a_union() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            if schema.get("properties").is_some() {
                for key in ["anyOf", "oneOf", "allOf"] {
                    assert!(schema.get(key).is_none(), "{name} has {key}");
                }
            }
        }
    }

    #[test]
    fn mark_read_takes_ids_or_all_true() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let mark_read = schema(&doc, "MarkReadParams");
        assert_eq!(mark_read["if"]["required"], json!(["ids"]));
        assert_eq!(
            mark_read["then"]["properties"]["all"]["enum"],
            json!([false, null])
        );
        assert_eq!(mark_read["else"]["properties"]["all"]["const"], true);
        let body = &doc["paths"]["/v1/public/notifications.markRead"]["post"]["requestBody"];
        assert_eq!(body["required"], true, "`{{}}` is refused");
    }

    #[test]
    fn parameter_objects_are_closed_and_free_form_objects_open() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let update = schema(&doc, "UpdateFeedbackParams");
        assert_eq!(update["additionalProperties"], false);
        assert_eq!(update["properties"]["meta"]["additionalProperties"], true);
        assert_eq!(schema(&doc, "NoParams")["additionalProperties"], false);
        let feedback = schema(&doc, "FeedbackJson");
        assert!(feedback.get("additionalProperties").is_none(), "a reply");
        assert_eq!(feedback["properties"]["meta"]["additionalProperties"], true);
        // Typed maps keep their type.
        let reactions = &schema(&doc, "DocumentDto")["properties"]["reactions"];
        assert_eq!(reactions["additionalProperties"]["type"], "integer");
        // A nested object with properties of its own is left as it is.
        assert!(schema(&doc, "BoardMetaParams")
            .get("additionalProperties")
            .is_none());
    }

    #[test]
    fn aliases_are_properties_and_never_both() {
        let doc: Value = serde_json::from_str(&crate::openapi_json()).unwrap();
        let subscribe = schema(&doc, "SubscribeParams");
        assert_eq!(
            subscribe["properties"]["targetUrl"]["pattern"],
            subscribe["properties"]["target_url"]["pattern"]
        );
        assert_eq!(subscribe["required"], json!(["event"]));
        assert_eq!(subscribe["if"], json!({"required": ["targetUrl"]}));
        assert_eq!(subscribe["else"], json!({"required": ["target_url"]}));
        assert_eq!(
            subscribe["not"],
            json!({"required": ["target_url", "targetUrl"]})
        );
        // The alias really is taken for the field.
        let parsed: crate::dto::automation::SubscribeParams =
            serde_json::from_value(json!({"targetUrl": "https://a.example", "event": "x"}))
                .unwrap();
        assert_eq!(parsed.target_url.as_deref(), Some("https://a.example"));
        for (name, alias, field) in ALIASES {
            let properties = &schema(&doc, name)["properties"];
            assert!(properties[alias].is_object(), "{name}.{alias}");
            assert!(properties[field].is_object(), "{name}.{field}");
        }
    }
}
