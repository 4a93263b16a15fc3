//! Lenient scalars: query-string values arrive as strings, so numeric and boolean parameters
//! accept either the JSON value or a string holding it (`"limit": 10` and `?limit=10` alike).
//!
//! Errors say what the value must be; [`super`] prefixes the field name
//! (`limit must be an integer`).

use serde::{de::Error, Deserialize, Deserializer};
use serde_json::Value;

/// An optional integer: `10`, `10.0`, `"10"` or null. `2.5` and `"abc"` are refused.
pub fn opt_i64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    const MUST: &str = "must be an integer";
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().and_then(whole_i64))
            .map(Some)
            .ok_or_else(|| D::Error::custom(MUST)),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| D::Error::custom(MUST)),
        Some(_) => Err(D::Error::custom(MUST)),
    }
}

/// An optional boolean: `true`, `"true"` (any case), `false`, `"false"` or null.
pub fn opt_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    const MUST: &str = "must be a boolean";
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(D::Error::custom(MUST)),
        },
        Some(_) => Err(D::Error::custom(MUST)),
    }
}

/// A string that `null` clears: absent is `None` (with `#[serde(default)]`), `null`
/// `Some(None)`, a string `Some(Some(..))`.
pub fn nullable<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<String>>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(Some(None)),
        Value::String(s) => Ok(Some(Some(s))),
        _ => Err(D::Error::custom("must be a string or null")),
    }
}

/// An optional list of strings: `["a", "b"]`, `"a"`, or `"a,b"` (as a query string gives it).
pub fn opt_string_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    const MUST: &str = "must be a string or a list of strings";
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(
            s.split(',')
                .map(str::trim)
                .filter(|part| !part.is_empty())
                .map(str::to_owned)
                .collect(),
        )),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.trim().to_owned()),
                _ => Err(D::Error::custom(MUST)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(D::Error::custom(MUST)),
    }
}

/// A float with no fractional part that fits an `i64` (`10.0` → 10).
fn whole_i64(f: f64) -> Option<i64> {
    // 2^63 is exactly representable; every whole f64 below it in magnitude fits an i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Probe {
        #[serde(default, deserialize_with = "opt_string_list")]
        l: Option<Vec<String>>,
        #[serde(default, deserialize_with = "opt_i64")]
        n: Option<i64>,
        #[serde(default, deserialize_with = "opt_bool")]
        b: Option<bool>,
    }

    fn probe(v: Value) -> Result<Probe, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn integers_come_as_numbers_or_strings() {
        assert_eq!(probe(json!({"n": 7})).unwrap().n, Some(7));
        assert_eq!(probe(json!({"n": "  -7 "})).unwrap().n, Some(-7));
        assert_eq!(probe(json!({"n": 7.0})).unwrap().n, Some(7));
        assert_eq!(probe(json!({"n": null})).unwrap().n, None);
        assert_eq!(probe(json!({})).unwrap().n, None);
    }

    #[test]
    fn non_integers_are_refused() {
        for bad in [
            json!(2.5),
            json!("abc"),
            json!("2.5"),
            json!(true),
            json!([1]),
            json!(1e300),
        ] {
            assert_eq!(
                probe(json!({ "n": bad })).unwrap_err(),
                "must be an integer",
                "{bad} accepted"
            );
        }
    }

    #[test]
    fn booleans_come_as_booleans_or_strings() {
        assert_eq!(probe(json!({"b": true})).unwrap().b, Some(true));
        assert_eq!(probe(json!({"b": "False"})).unwrap().b, Some(false));
        assert_eq!(probe(json!({"b": null})).unwrap().b, None);
        for bad in [json!(1), json!("yes"), json!({})] {
            assert_eq!(probe(json!({ "b": bad })).unwrap_err(), "must be a boolean");
        }
    }

    #[test]
    fn string_lists_come_as_lists_single_strings_or_comma_lists() {
        let list = |v: Value| probe(json!({ "l": v })).map(|p| p.l);
        assert_eq!(
            list(json!(["a", " b"])).unwrap(),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(list(json!("a")).unwrap(), Some(vec!["a".into()]));
        assert_eq!(
            list(json!("a, b,")).unwrap(),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(list(json!(null)).unwrap(), None);
        for bad in [json!(1), json!([1]), json!({})] {
            assert_eq!(
                list(bad).unwrap_err(),
                "must be a string or a list of strings"
            );
        }
    }
}
