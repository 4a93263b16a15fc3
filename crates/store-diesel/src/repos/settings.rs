//! Settings: named values kept in the database, such as the generated token-signing secret;
//! and `ping`, the health check.

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::ports::{SettingsStore, StoreResult};

use crate::{connection::per_backend, schema::settings, tx::write_tx, DieselStore};

#[derive(Insertable)]
#[diesel(table_name = settings)]
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

    async fn ping(&self) -> StoreResult<()> {
        self.run(|conn| {
            diesel::sql_query("SELECT 1").execute(conn)?;
            Ok(())
        })
        .await
    }
}
