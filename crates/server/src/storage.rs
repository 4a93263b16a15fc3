//! Where a server keeps its data: a database (SQLite or PostgreSQL, through `DieselStore`), or
//! memory (`memory://`, through `MemoryStore`: nothing written anywhere, everything forgotten
//! when the process ends; for other projects' test suites and trying Sounding out).

use std::sync::Arc;

use anyhow::{anyhow, Context as _};
use sounding_domain::ports::Store;
use sounding_http_actix::RequestScope;
use sounding_store_diesel::{DieselStore, EventsCommitted, PoolConnections, PoolOptions};
use sounding_store_memory::MemoryStore;

/// The database URL that selects the in-memory store.
pub const MEMORY_URL: &str = "memory://";

/// Whether `url` names the in-memory store (`memory://`, any case; `memory:` too).
pub fn is_memory(url: &str) -> bool {
    let url = url.trim();
    url.eq_ignore_ascii_case(MEMORY_URL) || url.eq_ignore_ascii_case("memory:")
}

/// The store a server runs on.
#[derive(Clone)]
pub(crate) enum Storage {
    Database(Arc<DieselStore>),
    Memory(Arc<MemoryStore>),
}

impl Storage {
    /// Opens the store `database_url` names, migrated, calling `wake` after each commit that
    /// wrote outbox events. `read_cache_bytes`: the SQLite read cache's budget.
    pub(crate) async fn open(
        database_url: &str,
        read_cache_bytes: u64,
        wake: EventsCommitted,
    ) -> anyhow::Result<Self> {
        if is_memory(database_url) {
            tracing::warn!(
                "the database is in memory ({MEMORY_URL}): nothing is written to disk, and \
                 everything is forgotten when the server stops"
            );
            return Ok(Self::Memory(Arc::new(
                MemoryStore::new().on_events_committed(wake),
            )));
        }
        let store = open_store(database_url, read_cache_bytes).await?;
        Ok(Self::Database(Arc::new(store.on_events_committed(wake))))
    }

    /// The store, for the use cases.
    pub(crate) fn store(&self) -> Arc<dyn Store> {
        match self {
            Self::Database(store) => store.clone(),
            Self::Memory(store) => store.clone(),
        }
    }

    /// How many store calls can run at once, when the store bounds it (a pool's size).
    pub(crate) fn max_connections(&self) -> Option<usize> {
        match self {
            Self::Database(store) => usize::try_from(store.max_connections()).ok(),
            Self::Memory(_) => None,
        }
    }

    /// What each HTTP request runs inside: the database store's scope, in which a request's
    /// cached reads ask once whether the database changed; none in memory.
    pub(crate) fn request_scope(&self) -> Option<RequestScope> {
        match self {
            Self::Database(_) => {
                Some(|request| Box::pin(sounding_store_diesel::one_request(request)))
            }
            Self::Memory(_) => None,
        }
    }

    /// The request pool's connections now; `None` in memory (no pool).
    pub(crate) fn pool_connections(&self) -> Option<PoolConnections> {
        match self {
            Self::Database(store) => Some(store.pool_connections()),
            Self::Memory(_) => None,
        }
    }

    /// The store the webhook worker uses: on a database, a pool of its own of `connections`,
    /// so it never queues behind the requests; in memory, the same store.
    pub(crate) async fn for_worker(&self, connections: u32) -> anyhow::Result<Arc<dyn Store>> {
        match self {
            Self::Database(store) => {
                let store = store.clone();
                let own =
                    tokio::task::spawn_blocking(move || store.for_webhook_worker(connections))
                        .await
                        .map_err(|e| anyhow!("opening the webhook worker's pool panicked: {e}"))?
                        .context("cannot open the webhook worker's database pool")?;
                Ok(Arc::new(own))
            }
            Self::Memory(store) => Ok(store.clone()),
        }
    }
}

/// Connects to the database and applies pending migrations. `read_cache_bytes`: the SQLite
/// read cache's budget (0: none; the admin commands, which live for one command, keep none).
pub(crate) async fn open_store(
    database_url: &str,
    read_cache_bytes: u64,
) -> anyhow::Result<DieselStore> {
    let store = connect(database_url, read_cache_bytes).await?;
    // The adapter logs the versions it applied.
    store
        .migrate()
        .await
        .context("cannot migrate the database")?;
    Ok(store)
}

/// Connects without migrating. Building the pool may block (file creation, first PostgreSQL
/// handshake), so it runs off the async workers.
pub(crate) async fn connect(
    database_url: &str,
    read_cache_bytes: u64,
) -> anyhow::Result<DieselStore> {
    let url = database_url.to_owned();
    let shown = crate::redact_url(database_url);
    let options = PoolOptions {
        read_cache_bytes,
        ..PoolOptions::default()
    };
    tokio::task::spawn_blocking(move || DieselStore::connect_with(&url, options))
        .await
        .map_err(|e| anyhow!("connecting to the database panicked: {e}"))?
        .with_context(|| format!("cannot open the database {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_urls_are_recognised_in_any_case_and_nothing_else_is() {
        for url in ["memory://", "MEMORY://", " memory: "] {
            assert!(is_memory(url), "{url}");
        }
        for url in [
            "memory://x",
            "sqlite://memory",
            "memory",
            "postgres://memory",
        ] {
            assert!(!is_memory(url), "{url}");
        }
    }
}
