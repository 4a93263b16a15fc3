//! Free-form `meta` objects: bounded in size and depth (decisions §2) and merged key by key
//! on update.

use serde_json::{Map, Value};

use crate::{
    error::{DomainError, DomainResult},
    text,
};

/// The largest `meta`, in bytes of its JSON: 16 KiB, sent alone and once merged.
pub const META_MAX_BYTES: usize = 16 * 1024;
/// The deepest nesting of objects and arrays in a `meta`; the object itself is level 1.
pub const META_MAX_DEPTH: usize = 8;

/// Custom attributes a client attaches to a subscriber, feedback item or topic: a JSON object.
pub type Meta = Map<String, Value>;

/// Checks a client-supplied meta value: an object, at most 16 KiB as JSON, at most 8 deep.
pub fn validate(field: &str, value: &Value) -> DomainResult<Meta> {
    let Value::Object(map) = value else {
        return Err(DomainError::invalid(format!("{field} must be an object")));
    };
    if depth(value) > META_MAX_DEPTH {
        return Err(DomainError::invalid(format!(
            "{field} must be nested at most {META_MAX_DEPTH} levels deep"
        )));
    }
    if oversized(value) {
        return Err(DomainError::invalid(format!(
            "{field} must be at most 16 KiB as JSON"
        )));
    }
    Ok(map.clone())
}

/// An optional meta field: absent or `null` is `None`, anything else must pass `validate`.
pub fn validate_optional(field: &str, value: Option<&Value>) -> DomainResult<Option<Meta>> {
    value
        .filter(|v| !v.is_null())
        .map(|v| validate(field, v))
        .transpose()
}

/// A `meta` of documented settings (a board's, a stage's): a key absent or `null` leaves its
/// setting as it is; other keys are ignored.
pub(crate) struct Settings<'a>(pub(crate) &'a Meta);

impl Settings<'_> {
    /// A boolean setting.
    pub(crate) fn flag(&self, key: &str) -> DomainResult<Option<bool>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(DomainError::invalid(format!(
                "meta.{key} must be a boolean"
            ))),
        }
    }

    /// `color`: a hex color, or `null` to clear it (`Some(None)`).
    pub(crate) fn color(&self) -> DomainResult<Option<Option<String>>> {
        match self.0.get("color") {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(Value::String(s)) => Ok(Some(Some(text::color("meta.color", s)?))),
            Some(_) => Err(DomainError::invalid(
                "meta.color must be a hex color like #3B82F6",
            )),
        }
    }
}

/// Shallow merge: keys in `patch` replace those in `base`; a `null` value removes the key.
///
/// ```
/// use serde_json::json;
/// use sounding_domain::meta::{merge, validate};
///
/// let mut stored = validate("meta", &json!({"plan": "free", "mmr": 10})).unwrap();
/// let patch = validate("meta", &json!({"plan": "pro", "mmr": null, "seats": 3})).unwrap();
/// merge(&mut stored, &patch);
/// assert_eq!(serde_json::Value::Object(stored), json!({"plan": "pro", "seats": 3}));
/// assert!(validate("meta", &json!(["not", "an", "object"])).is_err());
/// ```
pub fn merge(base: &mut Meta, patch: &Meta) {
    for (key, value) in patch {
        if value.is_null() {
            base.remove(key);
        } else {
            base.insert(key.clone(), value.clone());
        }
    }
}

/// `merge` for a patch a client sends to stored meta: refused (and `base` left alone) when the
/// merged object would pass the size limit. Each patch is checked on its own, but patches with
/// new keys would otherwise grow a stored object without end.
pub fn merge_bounded(field: &str, base: &mut Meta, patch: &Meta) -> DomainResult<()> {
    let mut merged = base.clone();
    merge(&mut merged, patch);
    if oversized(&merged) {
        return Err(merged_too_large(field));
    }
    *base = merged;
    Ok(())
}

/// The error of `merge_bounded`; also what a use case reports when a store refused a merge
/// it does inside its transaction (subscriber meta).
pub fn merged_too_large(field: &str) -> DomainError {
    DomainError::invalid(format!(
        "{field} must be at most 16 KiB as JSON once merged with the stored {field}"
    ))
}

/// Whether the value's JSON is over `META_MAX_BYTES`.
fn oversized(value: &impl serde::Serialize) -> bool {
    serde_json::to_vec(value).map_or(true, |json| json.len() > META_MAX_BYTES)
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rejects_non_objects_deep_nesting_and_oversize() {
        assert!(validate("meta", &json!([1])).is_err());
        let mut deep = json!(1);
        for _ in 0..9 {
            deep = json!({ "a": deep });
        }
        assert!(validate("meta", &deep).is_err());
        let mut ok = json!(1);
        for _ in 0..8 {
            ok = json!({ "a": ok });
        }
        assert!(validate("meta", &ok).is_ok());
        let big = json!({ "a": "x".repeat(META_MAX_BYTES) });
        assert_eq!(
            validate("meta", &big),
            Err(DomainError::invalid("meta must be at most 16 KiB as JSON"))
        );
    }

    #[test]
    fn bounded_merges_refuse_to_grow_past_the_limit_and_change_nothing() {
        let half = |key: &str| -> Meta {
            let value = json!({ key: "x".repeat(META_MAX_BYTES / 2) });
            value.as_object().unwrap().clone()
        };
        let mut base = half("a");
        merge_bounded("meta", &mut base, &half("a")).unwrap();
        assert_eq!(base.len(), 1, "replacing a key does not grow");
        let before = base.clone();
        assert_eq!(
            merge_bounded("meta", &mut base, &half("b")),
            Err(DomainError::invalid(
                "meta must be at most 16 KiB as JSON once merged with the stored meta"
            ))
        );
        assert_eq!(base, before);
        let removal = json!({"a": null}).as_object().unwrap().clone();
        merge_bounded("meta", &mut base, &removal).unwrap();
        merge_bounded("meta", &mut base, &half("b")).unwrap();
        assert!(base.contains_key("b") && !base.contains_key("a"));
    }

    #[test]
    fn merge_replaces_adds_and_removes_keys() {
        let mut base = validate("meta", &json!({"a": 1, "b": 2})).unwrap();
        let patch = validate("meta", &json!({"b": 3, "c": 4, "a": null})).unwrap();
        merge(&mut base, &patch);
        assert_eq!(Value::Object(base), json!({"b": 3, "c": 4}));
    }
}
