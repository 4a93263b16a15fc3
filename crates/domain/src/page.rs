//! Pagination bounds (decisions §2): `limit` 1..=100, clamped above 100; `offset` >= 0.

use crate::error::{DomainError, DomainResult};

/// The largest page; a larger `limit` is clamped to it.
pub const MAX_LIMIT: i64 = 100;

/// A validated `limit` and `offset` of a list request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageRequest {
    /// Items per page: 1..=[`MAX_LIMIT`].
    pub limit: i64,
    /// Items skipped before the page: 0 or more.
    pub offset: i64,
}

impl PageRequest {
    /// Validates a list's `limit` and `offset`: an absent `limit` is the operation's
    /// `default_limit`, one over [`MAX_LIMIT`] is clamped, one below 1 is invalid; an absent
    /// `offset` is 0, a negative one is invalid.
    ///
    /// ```
    /// use sounding_domain::page::PageRequest;
    /// use sounding_domain::DomainError;
    ///
    /// let page = PageRequest::new(None, None, 20).unwrap();
    /// assert_eq!((page.limit, page.offset), (20, 0));
    /// let page = PageRequest::new(Some(1_000), Some(40), 20).unwrap();
    /// assert_eq!((page.limit, page.offset), (100, 40));
    /// assert_eq!(
    ///     PageRequest::new(Some(0), None, 20),
    ///     Err(DomainError::invalid("limit must be between 1 and 100"))
    /// );
    /// assert_eq!(
    ///     PageRequest::new(None, Some(-1), 20),
    ///     Err(DomainError::invalid("offset must be 0 or more"))
    /// );
    /// ```
    pub fn new(limit: Option<i64>, offset: Option<i64>, default_limit: i64) -> DomainResult<Self> {
        let limit = match limit {
            None => default_limit,
            Some(l) if l < 1 => {
                return Err(DomainError::invalid("limit must be between 1 and 100"))
            }
            Some(l) => l.min(MAX_LIMIT),
        };
        let offset = match offset {
            None => 0,
            Some(o) if o < 0 => return Err(DomainError::invalid("offset must be 0 or more")),
            Some(o) => o,
        };
        Ok(Self { limit, offset })
    }
}

/// One page of results and the total the page was cut from.
#[derive(Debug, Clone, PartialEq)]
pub struct Paged<T> {
    /// The page's items in the list's order: at most `page.limit`.
    pub items: Vec<T>,
    /// How many items the query selects across all pages.
    pub total: i64,
    /// The request the page answers.
    pub page: PageRequest,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any limit and offset either give a page inside the bounds (limit clamped to 100,
        /// offset as asked) or are refused, exactly when below the bounds.
        #[test]
        fn pages_are_clamped_or_refused(
            limit in prop::option::of(any::<i64>()),
            offset in prop::option::of(any::<i64>()),
            default in 1i64..=MAX_LIMIT,
        ) {
            let refused = limit.is_some_and(|l| l < 1) || offset.is_some_and(|o| o < 0);
            match PageRequest::new(limit, offset, default) {
                Ok(page) => {
                    prop_assert!(!refused);
                    prop_assert!((1..=MAX_LIMIT).contains(&page.limit));
                    prop_assert_eq!(page.limit, limit.map_or(default, |l| l.min(MAX_LIMIT)));
                    prop_assert_eq!(page.offset, offset.unwrap_or(0));
                }
                Err(_) => prop_assert!(refused),
            }
        }
    }

    #[test]
    fn defaults_clamps_and_refuses() {
        assert_eq!(
            PageRequest::new(None, None, 20).unwrap(),
            PageRequest {
                limit: 20,
                offset: 0
            }
        );
        assert_eq!(
            PageRequest::new(Some(1000), Some(5), 20).unwrap(),
            PageRequest {
                limit: 100,
                offset: 5
            }
        );
        assert!(PageRequest::new(Some(0), None, 20).is_err());
        assert!(PageRequest::new(Some(-3), None, 20).is_err());
        assert!(PageRequest::new(None, Some(-1), 20).is_err());
    }
}
