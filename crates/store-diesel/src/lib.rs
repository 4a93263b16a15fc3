#![warn(missing_docs)]
//! Sounding's storage ports on diesel: one code path for SQLite and PostgreSQL, the engine
//! chosen at run time by the database URL. `DieselStore` is the adapter; `repos/` holds one
//! file per resource, `connection` the pool, `tx` the transaction helpers. docs/storage.md
//! says how it keeps every acknowledged write and what each read costs.
//!
//! Connect, migrate (the migrations are embedded), then use it through the ports:
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use sounding_domain::ports::{SettingsStore, TeamStore};
//! use sounding_store_diesel::{DieselStore, Engine};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let url = format!("sqlite://{}", dir.path().join("sounding.db").display());
//! // Opening may create the file and its folder: off the async workers.
//! let store = tokio::task::spawn_blocking(move || DieselStore::connect(&url))
//!     .await
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(store.engine(), Engine::Sqlite);
//! assert!(!store.migrate().await.unwrap().is_empty(), "a new file gets every migration");
//! assert!(store.migrate().await.unwrap().is_empty(), "and only once");
//! assert!(!store.any_team().await.unwrap());
//! assert_eq!(store.get_or_init_setting("k", "v").await.unwrap(), "v");
//! # });
//! ```

mod answers;
pub mod backup;
mod batch;
mod checkpoint;
mod coherence;
mod connection;
mod edits;
mod error;
mod migrations;
mod one_of;
mod packed_view;
mod raw_sql;
mod read_cache;
mod repos;
mod schema;
#[cfg(test)]
mod test_support;
mod tx;
mod writer;

use std::{
    hash::Hash,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use sounding_domain::ports::{StoreError, StoreResult};

pub use connection::{Engine, PoolOptions};
pub use error::ConnectError;
pub use read_cache::one_request;

use connection::{Access, DbConnection, DbPool, Target};
use error::{DbError, DbResult};
use read_cache::{Keep, Memo, ReadCache};
use writer::Writer;

/// The storage adapter: every port of `sounding_domain::ports::Store`. Cheap to clone (the
/// pool inside is shared).
#[derive(Clone)]
pub struct DieselStore {
    pool: DbPool,
    /// SQLite only: read-only connections for `run_read`, apart from the pool, whose
    /// connections may all be held by writers queueing for the write lock.
    readers: Option<DbPool>,
    engine: Engine,
    /// SQLite only: the thread every write of this database runs on, in groups (`writer`).
    writer: Option<Writer>,
    /// PostgreSQL only: votes and new items written together while others are (`batch`).
    batches: Option<Arc<repos::feedback::Batches>>,
    /// What the pool connects to, for `for_webhook_worker`.
    target: Target,
    /// Called after a transaction that wrote outbox events commits (see `on_events_committed`).
    events_committed: Option<EventsCommitted>,
    /// The hottest reads, remembered until the next commit by anyone (`read_cache`).
    read_cache: Option<Arc<ReadCache>>,
    /// Set when an operation failed because the database was full; `ping` then probes with a
    /// write, and clears it once one succeeds (`repos/settings.rs`).
    full: Arc<AtomicBool>,
}

/// Open database connections by what they are doing (`DieselStore::pool_connections`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolConnections {
    /// Checked out, running a query or a transaction.
    pub in_use: u32,
    /// Open and waiting in the pool.
    pub idle: u32,
}

/// A callback run after each commit that wrote outbox events.
pub type EventsCommitted = Arc<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for DieselStore {
    // Never the URL: it may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.pool.state();
        f.debug_struct("DieselStore")
            .field("engine", &self.engine)
            .field("connections", &state.connections)
            .field("idle_connections", &state.idle_connections)
            .finish()
    }
}

impl DieselStore {
    /// Opens a pool on `sqlite://path/to/file.db` (the file and its directory are created if
    /// missing) or `postgres://…`, with the default `PoolOptions`. Does not migrate.
    pub fn connect(database_url: &str) -> Result<DieselStore, ConnectError> {
        Self::connect_with(database_url, PoolOptions::default())
    }

    /// [`DieselStore::connect`] with the pool sized and the read cache budgeted by `options`.
    pub fn connect_with(
        database_url: &str,
        options: PoolOptions,
    ) -> Result<DieselStore, ConnectError> {
        let target = Target::parse(database_url)?;
        let engine = target.engine();
        let pool = connection::build_pool(target.clone(), &options, Access::ReadWrite)?;
        let readers = match engine {
            Engine::Sqlite => Some(connection::build_pool(
                target.clone(),
                &options,
                Access::ReadOnly,
            )?),
            Engine::Postgres => None,
        };
        let budget = options.read_cache_bytes;
        let read_cache = match &target {
            _ if budget == 0 => None,
            Target::Sqlite(path) => Some(ReadCache::open_sqlite(path, budget)),
            Target::Postgres(url) => Some(ReadCache::open_postgres(url, budget)),
        }
        .transpose()
        .map_err(|e| ConnectError::Open {
            engine,
            reason: StoreError::from(e).to_string(),
        })?
        .map(Arc::new);
        let writer = match engine {
            Engine::Sqlite => {
                Some(Writer::start(pool.clone()).map_err(|e| ConnectError::Open {
                    engine,
                    reason: format!("could not start the writer thread: {e}"),
                })?)
            }
            Engine::Postgres => None,
        };
        let batches = match engine {
            Engine::Sqlite => None,
            Engine::Postgres => Some(Arc::new(repos::feedback::Batches::new())),
        };
        tracing::debug!(%engine, max_connections = options.max_connections, "database pool open");
        Ok(DieselStore {
            pool,
            readers,
            engine,
            writer,
            batches,
            target,
            events_committed: None,
            read_cache,
            full: Arc::default(),
        })
    }

    /// The same database through a pool of its own (at most `max_connections`), sharing this
    /// store's SQLite writer thread, for the webhook worker: it must not queue for a connection
    /// behind the HTTP requests (its pass takes several connections one after another; on
    /// PostgreSQL under S7's load that wait held deliveries seconds behind their events). On
    /// PostgreSQL that pool's sessions commit without waiting for the WAL flush
    /// (`connection::POSTGRES_BOOKKEEPING_SESSION`), so use it for the worker's bookkeeping
    /// (fan-out, leases, attempt records) and nothing else.
    pub fn for_webhook_worker(&self, max_connections: u32) -> Result<DieselStore, ConnectError> {
        let options = PoolOptions {
            max_connections,
            ..PoolOptions::default()
        };
        Ok(DieselStore {
            pool: connection::build_pool(self.target.clone(), &options, Access::Bookkeeping)?,
            readers: self.readers.clone(),
            engine: self.engine,
            writer: self.writer.clone(),
            // A queue of its own: a batch runs with the pool of the store that queued it.
            batches: self.own_batches(),
            target: self.target.clone(),
            events_committed: self.events_committed.clone(),
            read_cache: self.read_cache.clone(),
            full: self.full.clone(),
        })
    }

    /// Runs `callback` after every commit of this store that wrote outbox events: the webhook
    /// worker's wake-up call, so events go out at once without waking it (two write
    /// transactions on SQLite) for every read.
    pub fn on_events_committed(mut self, callback: EventsCommitted) -> Self {
        self.events_committed = Some(callback);
        // A queue of its own, so its batches call this callback and no other store's.
        self.batches = self.own_batches();
        self
    }

    /// Queues of its own for a store with settings of its own, so its batches run with them
    /// and not another store's.
    fn own_batches(&self) -> Option<Arc<repos::feedback::Batches>> {
        self.batches
            .as_ref()
            .map(|_| Arc::new(repos::feedback::Batches::new()))
    }

    /// Runs the embedded migrations not yet applied; returns their versions, oldest first.
    pub async fn migrate(&self) -> Result<Vec<String>, ConnectError> {
        let pool = self.pool.clone();
        let engine = self.engine;
        let migration_failed = move |reason: String| ConnectError::Migration { engine, reason };
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get().map_err(|e| migration_failed(e.to_string()))?;
            migrations::run(&mut conn).map_err(migration_failed)
        })
        .await
        .map_err(|e| ConnectError::Migration {
            engine,
            reason: format!("the migration task failed: {e}"),
        })?
    }

    /// The connections this store's pools (with SQLite's readers) hold now, for monitoring.
    pub fn pool_connections(&self) -> PoolConnections {
        let mut total = PoolConnections::default();
        for pool in std::iter::once(&self.pool).chain(self.readers.as_ref()) {
            let state = pool.state();
            total.idle += state.idle_connections;
            total.in_use += state.connections.saturating_sub(state.idle_connections);
        }
        total
    }

    /// The most queries this store runs at once (its pool's size).
    pub fn max_connections(&self) -> u32 {
        self.pool.max_size()
    }

    /// The engine behind this store.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Runs `f`, which writes (in `tx::write_tx`), off the caller's executor thread: diesel
    /// blocks, and that thread must not. On SQLite on the writer thread, in a group with
    /// other writes (`writer`); on PostgreSQL with a pooled connection on tokio's blocking
    /// pool. The caller's tracing span goes along.
    async fn run<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        self.noted(self.run_unnoted(f).await)
    }

    /// Notes what a write's `result` says, for the request and for `ping`: what this
    /// request's reads learnt of the database is out of date once it wrote (`one_request`),
    /// whether the write succeeded or not, and a full database is remembered.
    fn noted<T>(&self, result: StoreResult<T>) -> StoreResult<T> {
        read_cache::RequestReads::forget();
        if matches!(result, Err(StoreError::Full(_))) {
            self.full.store(true, Ordering::Relaxed);
        }
        result
    }

    /// `run`, without noting a full database for `ping`.
    async fn run_unnoted<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        if let Some(writer) = &self.writer {
            return writer.write(self.events_committed.clone(), f).await;
        }
        let (result, began) = self.run_pooled(f).await;
        // Whether it succeeded or not (a failure may come after the commit): a round is
        // shared and cheap, a missed one would leave other instances reading old answers.
        if let (Some(cache), true) = (&self.read_cache, began.may_change_cached_answers()) {
            cache.wrote().await;
        }
        result
    }

    /// Runs `f` with a connection of the pool on tokio's blocking pool (PostgreSQL), then the
    /// events callback if it wrote events; also says which kinds of transaction `f` began.
    async fn run_pooled<T, F>(&self, f: F) -> (StoreResult<T>, tx::Began)
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        let pool = self.pool.clone();
        let events_committed = self.events_committed.clone();
        let span = tracing::Span::current();
        let (result, began) = tokio::task::spawn_blocking(move || {
            span.in_scope(|| {
                let mut conn = match pool.get() {
                    Ok(conn) => conn,
                    Err(error) => return (Err(DbError::Pool(error)), tx::Began::default()),
                };
                let ((result, wrote_events), began) =
                    tx::noting_transactions(|| repos::outbox::noting_events(|| f(&mut conn)));
                // Write transactions commit inside `f`. One that wrote events and then rolled
                // back only costs the worker a pass that finds nothing.
                if let (true, Some(callback)) = (wrote_events, &events_committed) {
                    callback();
                }
                (result, began)
            })
        })
        .await
        .unwrap_or_else(|e| {
            // Nothing says what the task did before it failed: count it as a write.
            let failed = Err(DbError::Task(format!("storage task failed: {e}")));
            (failed, tx::Began::default())
        });
        (result.map_err(failed), began)
    }

    /// Runs a read: `f` in one read transaction (`tx::read`: one snapshot for all its
    /// statements), and it must only read (on SQLite its connection refuses writes). On SQLite it
    /// runs right here on the caller's thread, with a connection of `readers`: a read in WAL
    /// mode never waits for a lock, and handing it to the blocking pool and back cost more
    /// than most reads (two thread switches per store call, ~20 % of `public/feedbacks.info`'s
    /// CPU; docs/benchmarks.md). The price is that a slow read holds up the other requests
    /// of its HTTP worker meanwhile (one worker per core). PostgreSQL reads are round trips
    /// to a server and stay on the blocking pool.
    async fn run_read<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        self.run_read_one(move |conn| tx::read(conn, f)).await
    }

    /// `run_read` for a read that is one statement, which both engines run in a snapshot of
    /// its own: no `BEGIN` and `COMMIT` around it. On SQLite they were 8 % of S4's HTTP
    /// thread (docs/benchmarks.md); on PostgreSQL they are two round trips. `f` must run
    /// exactly one statement; anything more goes through `run_read`, which is this with a
    /// read transaction around `f`.
    async fn run_read_one<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        match &self.readers {
            Some(readers) => readers
                .get()
                .map_err(DbError::Pool)
                .and_then(|mut conn| f(&mut conn))
                .map_err(failed),
            None => self.run_pooled(f).await.0,
        }
    }

    /// `run_read_one`, answered from `memo` of the read cache when the database has not
    /// changed since `key` was last read (SQLite; see `read_cache`). Without a cache or a key
    /// (an answer that moves with the clock), a plain `run_read_one`. `f` runs as given: one
    /// that reads with more than one statement wraps itself in `tx::read`.
    async fn run_read_cached<K, T, F>(
        &self,
        memo: fn(&ReadCache) -> &Memo<K, T>,
        key: Option<K>,
        f: F,
    ) -> StoreResult<T>
    where
        K: Eq + Hash + Clone + Send + Sync + 'static,
        T: Keep,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        let (Some(cache), Some(key)) = (&self.read_cache, key) else {
            return self.run_read_one(f).await;
        };
        // Asked before the read, so a commit between the two only makes this answer look
        // older than it is (see `read_cache`); asked once for all the reads of a request
        // (`one_request`).
        let Some(asked) = read_cache::RequestReads::version(cache).await else {
            return self.run_read_one(f).await;
        };
        let memo = memo(cache);
        if let Some(answer) = memo.get(&key, asked.version) {
            return Ok(answer);
        }
        let answer = self.run_read_one(f).await?;
        if asked.quiet {
            memo.put(key, asked.version, &answer);
        }
        Ok(answer)
    }
}

/// A store error as the ports report it, logged unless it is a conflict (a client's doing).
pub(crate) fn failed(error: DbError) -> StoreError {
    let error = StoreError::from(error);
    if !matches!(error, StoreError::Conflict(_)) {
        tracing::warn!(%error, "storage operation failed");
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full database (here SQLite's `max_page_count`, as a full disk would) is
    /// `StoreError::Full`, and `ping` reports it until a write fits again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_database_is_reported_as_full_until_space_is_freed() {
        use diesel::{sql_types::BigInt, QueryableByName, RunQueryDsl};
        use sounding_domain::ports::SettingsStore;

        #[derive(QueryableByName)]
        struct Pages {
            #[diesel(sql_type = BigInt)]
            page_count: i64,
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("full.db").display());
        let roomy = DieselStore::connect(&url).unwrap();
        roomy.migrate().await.unwrap();
        let pages = diesel::sql_query("PRAGMA page_count")
            .get_result::<Pages>(&mut **roomy.pool.get().unwrap())
            .unwrap()
            .page_count;
        let options = PoolOptions {
            sqlite_max_page_count: Some(u64::try_from(pages).unwrap() + 16),
            ..PoolOptions::default()
        };
        let store = DieselStore::connect_with(&url, options).unwrap();
        store.ping().await.unwrap();

        let value = "v".repeat(3000);
        let mut failure = None;
        for n in 0..200 {
            if let Err(error) = store
                .get_or_init_setting(&format!("fill-{n}"), &value)
                .await
            {
                failure = Some(error);
                break;
            }
        }
        let failure = failure.expect("16 pages fill up");
        assert!(matches!(failure, StoreError::Full(_)), "{failure:?}");
        assert!(
            matches!(store.ping().await, Err(StoreError::Full(_))),
            "ping reports the full database"
        );
        // Still full: ping keeps saying so.
        assert!(matches!(store.ping().await, Err(StoreError::Full(_))));

        diesel::sql_query("DELETE FROM settings WHERE name LIKE 'fill-%'")
            .execute(&mut **roomy.pool.get().unwrap())
            .unwrap();
        store.ping().await.expect("room again");
        store
            .get_or_init_setting("after", &value)
            .await
            .expect("writes fit again");
        store.ping().await.unwrap();
    }

    /// A migrated SQLite store in `dir`, and a connection to its file that the store knows
    /// nothing of (another process, to SQLite).
    async fn store_and_stranger(
        dir: &tempfile::TempDir,
    ) -> (DieselStore, diesel::SqliteConnection) {
        use diesel::Connection;
        let path = format!("{}/s.db", dir.path().display());
        let store = DieselStore::connect(&format!("sqlite://{path}")).unwrap();
        store.migrate().await.unwrap();
        (store, diesel::SqliteConnection::establish(&path).unwrap())
    }

    /// A commit by `store_and_stranger`'s stranger (after `write_through` made the table).
    fn commit_as_stranger(stranger: &mut diesel::SqliteConnection) {
        use diesel::connection::SimpleConnection;
        stranger
            .batch_execute("INSERT INTO one (a) VALUES (1)")
            .unwrap();
    }

    /// A commit through the store: a row into the table `one`, made the first time.
    async fn write_through(store: &DieselStore) {
        use diesel::RunQueryDsl;
        store
            .run(|conn| {
                tx::write_tx(conn, |conn| {
                    diesel::sql_query("CREATE TABLE IF NOT EXISTS one (a INTEGER)")
                        .execute(conn)?;
                    Ok(diesel::sql_query("INSERT INTO one (a) VALUES (2)").execute(conn)?)
                })
            })
            .await
            .unwrap();
    }

    /// A cached read of one item key that counts how often it reached the database.
    struct CountedRead<'a> {
        store: &'a DieselStore,
        key: (
            sounding_domain::ids::TeamId,
            sounding_domain::ids::FeedbackId,
        ),
        reads: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl<'a> CountedRead<'a> {
        fn of(store: &'a DieselStore) -> Self {
            use sounding_domain::ids::{FeedbackId, TeamId};
            CountedRead {
                store,
                key: (TeamId::new(), FeedbackId::new()),
                reads: Arc::default(),
            }
        }

        /// The read, through the cache when `cached`, else as an answer that moves with the
        /// clock (never remembered).
        async fn read_as(&self, cached: bool) {
            let reads = self.reads.clone();
            self.store
                .run_read_cached(
                    |cache| &cache.items,
                    cached.then_some(self.key),
                    move |_| {
                        reads.fetch_add(1, Ordering::SeqCst);
                        Ok(None)
                    },
                )
                .await
                .unwrap();
        }

        async fn read(&self) {
            self.read_as(true).await;
        }

        fn so_far(&self) -> usize {
            self.reads.load(Ordering::SeqCst)
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_remembered_read_is_answered_until_any_connection_commits() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut other) = store_and_stranger(&dir).await;
        let item = CountedRead::of(&store);

        // The first ask has nothing to compare with, so its answer is not kept; the second
        // finds the database quiet and keeps its answer; the third is answered from memory.
        item.read().await;
        item.read().await;
        item.read().await;
        assert_eq!(item.so_far(), 2, "the third read was answered from memory");

        // A commit through the store itself: the next read asks the database, and so does
        // the one after (the first found the database just changed, so kept nothing).
        write_through(&store).await;
        item.read().await;
        item.read().await;
        item.read().await;
        assert_eq!(
            item.so_far(),
            4,
            "read twice after the commit, then remembered"
        );

        // A commit by a connection the store knows nothing of (another process, to SQLite).
        commit_as_stranger(&mut other);
        item.read().await;
        assert_eq!(
            item.so_far(),
            5,
            "read again after another connection's commit"
        );

        // A key that moves with the clock is never remembered.
        item.read_as(false).await;
        item.read_as(false).await;
        assert_eq!(item.so_far(), 7);
    }

    /// In `one_request`, the cached reads of a request ask once whether the database
    /// changed: a commit by someone else after that ask is not looked for again within the
    /// request (it finished after the request arrived), but the request's own write is.
    #[tokio::test(flavor = "current_thread")]
    async fn the_reads_of_one_request_ask_once_until_it_writes() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut other) = store_and_stranger(&dir).await;
        let item = CountedRead::of(&store);
        write_through(&store).await;
        // Remembered: the second read found the database quiet.
        item.read().await;
        item.read().await;
        assert_eq!(item.so_far(), 2);

        one_request(async {
            item.read().await;
            assert_eq!(item.so_far(), 2, "answered from memory");
            commit_as_stranger(&mut other);
            item.read().await;
            assert_eq!(
                item.so_far(),
                2,
                "the request asked once, before that commit"
            );
            write_through(&store).await;
            item.read().await;
            assert_eq!(item.so_far(), 3, "its own write made it ask again");
        })
        .await;

        // The next request asks afresh: the database changed since the last ask.
        one_request(async {
            commit_as_stranger(&mut other);
            item.read().await;
            item.read().await;
            assert_eq!(item.so_far(), 5, "not quiet: read, and not remembered");
        })
        .await;
        one_request(item.read()).await;
        one_request(item.read()).await;
        assert_eq!(item.so_far(), 6, "quiet again: remembered at the first");
    }

    /// `AnswerStore`: an adapter's answer is given back until anyone commits, under its
    /// own key only, and kept only while the database is quiet.
    #[tokio::test(flavor = "current_thread")]
    async fn an_answer_is_given_back_until_any_connection_commits() {
        use sounding_domain::ports::{AnswerStore, Remembered};
        let dir = tempfile::tempdir().unwrap();
        let (store, mut other) = store_and_stranger(&dir).await;
        write_through(&store).await;
        let answer: Arc<[u8]> = Arc::from(&b"{\"data\":[]}"[..]);
        // Remembers it when offered a place, and says whether it was remembered before.
        let ask = |key: &'static [u8]| {
            let (store, answer) = (&store, answer.clone());
            async move {
                match store.remembered_answer(key).await {
                    Remembered::Answer(kept) => {
                        assert_eq!(kept, answer);
                        true
                    }
                    Remembered::Missing(place) => {
                        if let Some(place) = place {
                            assert_eq!(&*place.key, key);
                            store.remember_answer(place, answer);
                        }
                        false
                    }
                }
            }
        };
        assert!(!ask(b"list").await, "the first ask finds no quiet database");
        assert!(!ask(b"list").await, "quiet now: made, and remembered");
        assert!(ask(b"list").await, "given back");
        assert!(!ask(b"lis").await, "another key has none");

        commit_as_stranger(&mut other);
        assert!(!ask(b"list").await, "another connection committed");
        assert!(!ask(b"list").await);
        assert!(ask(b"list").await, "remembered again once quiet");
        write_through(&store).await;
        assert!(!ask(b"list").await, "the store's own commit");
        let busy = matches!(
            store.remembered_answer(b"list").await,
            Remembered::Missing(None)
        );
        assert!(!busy, "quiet again: a place is offered");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn without_a_budget_there_is_no_read_cache() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/n.db", dir.path().display());
        let options = PoolOptions {
            read_cache_bytes: 0,
            ..PoolOptions::default()
        };
        assert!(DieselStore::connect_with(&url, options)
            .unwrap()
            .read_cache
            .is_none());
        assert!(DieselStore::connect(&url).unwrap().read_cache.is_some());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn sqlite_reads_run_on_read_only_connections() {
        use diesel::RunQueryDsl;
        let dir = tempfile::tempdir().unwrap();
        let store =
            DieselStore::connect(&format!("sqlite://{}/r.db", dir.path().display())).unwrap();
        store.migrate().await.unwrap();
        let read = store
            .run_read(|conn| Ok(diesel::sql_query("SELECT 1").execute(conn)?))
            .await;
        assert!(read.is_ok(), "{read:?}");
        // A write that strays into a read fails instead of queueing for the write lock.
        let stray = store
            .run_read(|conn| Ok(diesel::sql_query("CREATE TABLE stray (a INTEGER)").execute(conn)?))
            .await;
        assert!(stray.is_err(), "{stray:?}");
        let written = store
            .run(|conn| Ok(diesel::sql_query("CREATE TABLE fine (a INTEGER)").execute(conn)?))
            .await;
        assert!(written.is_ok(), "{written:?}");
    }
}
