//! Shapes shared by many operations: the error body, pagination, and the `success` replies.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_domain::page::{PageRequest, Paged};
use utoipa::ToSchema;

use crate::error::ApiError;

/// Every error response. `statusCode` repeats the HTTP status, except in the four literal
/// bodies the interface fixes (`cannot publish a topic of private stage`, `Bad request`,
/// `title is required`, `Duplicate vote`), which carry `error` alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    #[schema(example = "Authentication required")]
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = 401)]
    pub status_code: Option<u16>,
}

/// Parameters of an operation that takes none: any field is an unknown parameter.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct NoParams {}

/// Folds a top-level flag spelled Userorbit's way (board `public`, stage `private`) into
/// `meta` under our key, so the domain reads one place. Given both ways is refused, even
/// when they agree (the document says "one of them"); a `meta` that is not an object is left
/// for the domain to refuse.
pub fn fold_flag_into_meta(
    meta: Option<Value>,
    flag: Option<bool>,
    alias: &str,
    key: &str,
) -> Result<Option<Value>, ApiError> {
    let Some(flag) = flag else {
        return Ok(meta);
    };
    match meta {
        None | Some(Value::Null) => Ok(Some(serde_json::json!({ key: flag }))),
        Some(Value::Object(mut object)) => match object.get(key) {
            Some(given) if !given.is_null() => Err(ApiError::bad_request(format!(
                "give {alias} or meta.{key}, not both"
            ))),
            _ => {
                object.insert(key.to_owned(), Value::Bool(flag));
                Ok(Some(Value::Object(object)))
            }
        },
        other => Ok(other),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Pagination {
    /// Items before paging.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

impl Pagination {
    /// What a page of the store says about itself.
    pub fn of<T>(page: &Paged<T>) -> Self {
        Self {
            total: page.total,
            limit: page.page.limit,
            offset: page.page.offset,
        }
    }
}

/// `{success: true}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SuccessResponse {
    pub success: bool,
}

impl SuccessResponse {
    pub fn ok() -> Self {
        Self { success: true }
    }
}

/// `{success: true, id}` for deletions.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeletedResponse {
    pub success: bool,
    #[schema(value_type = String, format = Uuid)]
    pub id: String,
}

impl DeletedResponse {
    pub fn new(id: impl ToString) -> Self {
        Self {
            success: true,
            id: id.to_string(),
        }
    }
}

/// Cuts one page out of a complete, ordered list and describes it.
pub fn paginate<T, U>(
    items: &[T],
    page: PageRequest,
    render: impl Fn(&T) -> U,
) -> (Vec<U>, Pagination) {
    let total = items.len();
    let offset = usize::try_from(page.offset).unwrap_or(usize::MAX);
    let limit = usize::try_from(page.limit).unwrap_or(0);
    let data = items.iter().skip(offset).take(limit).map(render).collect();
    (
        data,
        Pagination {
            total: i64::try_from(total).unwrap_or(i64::MAX),
            limit: page.limit,
            offset: page.offset,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paginate_slices_and_reports_the_total() {
        let items: Vec<i32> = (1..=5).collect();
        let page = PageRequest::new(Some(2), Some(3), 100).unwrap();
        let (data, pagination) = paginate(&items, page, |i| i * 10);
        assert_eq!(data, vec![40, 50]);
        assert_eq!(
            pagination,
            Pagination {
                total: 5,
                limit: 2,
                offset: 3
            }
        );
        let far = PageRequest::new(None, Some(50), 100).unwrap();
        assert!(paginate(&items, far, |i| *i).0.is_empty());
    }

    #[test]
    fn a_flag_folds_into_meta_and_a_contradiction_is_refused() {
        use serde_json::json;
        let fold = |meta, flag| fold_flag_into_meta(meta, flag, "public", "isPublic");
        assert_eq!(fold(None, None).unwrap(), None);
        assert_eq!(
            fold(None, Some(false)).unwrap(),
            Some(json!({"isPublic": false}))
        );
        assert_eq!(
            fold(Some(json!({"color": "#000000"})), Some(true)).unwrap(),
            Some(json!({"color": "#000000", "isPublic": true}))
        );
        for given in [true, false] {
            let err = fold(Some(json!({"isPublic": given})), Some(false)).unwrap_err();
            assert_eq!(err.message(), "give public or meta.isPublic, not both");
        }
        assert_eq!(
            fold(Some(json!({"isPublic": null})), Some(true)).unwrap(),
            Some(json!({"isPublic": true}))
        );
        // Not an object: the domain refuses it, naming meta.
        assert_eq!(fold(Some(json!(3)), Some(true)).unwrap(), Some(json!(3)));
    }
}
