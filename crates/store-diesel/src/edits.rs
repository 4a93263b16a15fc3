//! The adapter's half of `sounding_domain::edit`, the one way a stored row changes: the row
//! is read inside a write transaction — locked on PostgreSQL (`locked!`), serialized by the
//! writer's `BEGIN IMMEDIATE` on SQLite — edited by the use case's function, and written back
//! with the edit's events only when it really changed.

use sounding_domain::{
    edit::{self, Blocked, Edit, Edited},
    ports::StoreResult,
};

use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    repos::outbox::insert_events,
    tx::write_tx,
    DieselStore,
};

/// Runs a select of one row with `FOR NO KEY UPDATE` on PostgreSQL (the row stays locked
/// until the transaction ends, and a concurrent edit of it waits for this one), plain on
/// SQLite, whose writers are serialized already. `None` when there is no such row.
macro_rules! locked {
    ($conn:expr, $query:expr) => {
        diesel::OptionalExtension::optional(match $conn {
            $crate::connection::DbConnection::Postgresql(inner) => {
                diesel::RunQueryDsl::get_result(diesel::QueryDsl::for_no_key_update($query), inner)
            }
            $crate::connection::DbConnection::Sqlite(inner) => {
                diesel::RunQueryDsl::get_result($query, inner)
            }
        })
    };
}
pub(crate) use locked;

/// How the store writes an edited row: given the row before and after, it writes what
/// changed. A `Blocked::Refused` must come before anything is written.
pub(crate) type Write<T> = fn(&mut DbConnection, &T, &T) -> Result<(), Blocked<DbError>>;

impl DieselStore {
    /// Runs `edit` in one write transaction: `read` finds the row (locking it), the edit
    /// decides, `write` writes it back and the edit's events are appended — or nothing at all
    /// is written when the edit changed nothing, refused, or found no row.
    pub(crate) async fn edit<T, R>(
        &self,
        edit: Edit<T>,
        read: R,
        write: Write<T>,
    ) -> StoreResult<Edited<T>>
    where
        T: Clone + PartialEq + Send + 'static,
        R: FnOnce(&mut DbConnection) -> DbResult<Option<T>> + Send + 'static,
    {
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let found = read(conn)?;
                edit::run(found, edit, |before, after, events| {
                    write(conn, before, after)?;
                    Ok(insert_events(conn, &events)?)
                })
            })
        })
        .await
    }
}
