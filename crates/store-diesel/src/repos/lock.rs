//! Row locks: how a write holds the row it depends on (an item, a topic, a roadmap, a webhook
//! subscription) until its transaction ends. PostgreSQL takes the lock asked; SQLite has no
//! row locks and needs none, as `BEGIN IMMEDIATE` already serializes writers.

/// How `lock_row!` holds the row on PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lock {
    /// `FOR KEY SHARE`: keeps the row from being deleted (what a foreign key check takes), for
    /// rows that reference it without changing it.
    KeyShare,
    /// `FOR NO KEY UPDATE`: serializes the writers of the row's own columns (its counts, its
    /// stages' order) without blocking the key share of a foreign key check.
    Update,
    /// `FOR UPDATE`: exclusive; the row is about to be deleted. Waits for (and then blocks)
    /// every transaction that references it.
    Delete,
}

impl Lock {
    /// The locking clause of a hand-written statement (`RawSql`) on PostgreSQL.
    pub(crate) fn clause(self) -> &'static str {
        match self {
            Lock::KeyShare => " FOR KEY SHARE",
            Lock::Update => " FOR NO KEY UPDATE",
            Lock::Delete => " FOR UPDATE",
        }
    }
}

/// Runs the one-row `$query` with the row locked as `$lock` asks on PostgreSQL, plainly on
/// SQLite: `Ok(None)` when there is no such row. A macro because the locking clauses are
/// PostgreSQL's: the query is built again for each engine.
macro_rules! lock_row {
    ($conn:expr, $query:expr, $lock:expr) => {
        diesel::OptionalExtension::optional(match $conn {
            $crate::connection::DbConnection::Postgresql(inner) => match $lock {
                $crate::repos::lock::Lock::KeyShare => {
                    diesel::RunQueryDsl::get_result(diesel::QueryDsl::for_key_share($query), inner)
                }
                $crate::repos::lock::Lock::Update => diesel::RunQueryDsl::get_result(
                    diesel::QueryDsl::for_no_key_update($query),
                    inner,
                ),
                $crate::repos::lock::Lock::Delete => {
                    diesel::RunQueryDsl::get_result(diesel::QueryDsl::for_update($query), inner)
                }
            },
            $crate::connection::DbConnection::Sqlite(inner) => {
                diesel::RunQueryDsl::get_result($query, inner)
            }
        })
    };
}
pub(crate) use lock_row;
