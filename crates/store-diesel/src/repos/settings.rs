//! Settings: named values kept in the database, such as the generated token-signing secret;
//! and `ping`, the health check.

use std::sync::atomic::Ordering;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::ports::{SettingsStore, StoreResult};

use crate::{connection::per_backend, schema::settings, tx::write_tx, DieselStore};

/// The name of `ping`'s probe row, never left behind.
const FULL_PROBE: &str = "sounding.ping.full-probe";

#[derive(Insertable)]
#[diesel(table_name = settings, treat_none_as_default_value = false)]
struct SettingRow {
    name: String,
    value: String,
}

#[async_trait]
impl SettingsStore for DieselStore {
    async fn get_or_init_setting(&self, name: &str, candidate: &str) -> StoreResult<String> {
        let row = SettingRow {
            name: name.to_owned(),
            value: candidate.to_owned(),
        };
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Insert-if-absent, then read whatever is there: a concurrent first caller's
                // insert makes ours a no-op (PostgreSQL waits for it to commit), so every
                // caller reads the one stored value.
                per_backend!(conn, |inner| diesel::insert_into(settings::table)
                    .values(&row)
                    .on_conflict_do_nothing()
                    .execute(inner))?;
                let value = settings::table
                    .find(&row.name)
                    .select(settings::value)
                    .get_result::<String>(conn)?;
                Ok(value)
            })
        })
        .await
    }

    /// `SELECT 1`; but after an operation failed because the database was full, a write: a
    /// row of 8 KiB (a few pages) inserted and deleted in one transaction. It fails the same
    /// way while the database or its disk is still full, and once it commits the store is
    /// taken to have room again. So `/readyz` says "full" exactly while writes fail, and the
    /// probe costs nothing (no commit, no read-cache miss) the rest of the time.
    async fn ping(&self) -> StoreResult<()> {
        if !self.full.load(Ordering::Relaxed) {
            return self
                .run(|conn| {
                    diesel::sql_query("SELECT 1").execute(conn)?;
                    Ok(())
                })
                .await;
        }
        let probe = SettingRow {
            name: FULL_PROBE.to_owned(),
            value: "x".repeat(8192),
        };
        self.run(move |conn| {
            write_tx(conn, |conn| {
                per_backend!(conn, |inner| diesel::insert_into(settings::table)
                    .values(&probe)
                    .on_conflict_do_nothing()
                    .execute(inner))?;
                diesel::delete(settings::table.find(FULL_PROBE)).execute(conn)?;
                Ok(())
            })
        })
        .await?;
        self.full.store(false, Ordering::Relaxed);
        Ok(())
    }
}
