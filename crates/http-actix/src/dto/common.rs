//! Shapes shared by many operations: the error body, pagination, and the `success` replies.

use serde::{Deserialize, Serialize};
use sounding_domain::page::PageRequest;
use utoipa::ToSchema;

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

/// Parameters of an operation that takes none. Any body fields are ignored.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct NoParams {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Pagination {
    /// Items before paging.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
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
}
