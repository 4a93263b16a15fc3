//! SQLite's one writer, with group commit. Every write of a SQLite `DieselStore` runs on one
//! thread that owns the write connection, and the writes that queued while it was busy share
//! one transaction.
//!
//! Why: SQLite lets one writer in at a time anyway, and per write the fixed costs were most of
//! the work (docs/benchmarks.md, S4): `BEGIN IMMEDIATE` and `COMMIT` (which appends the WAL
//! frames), and handing the write to tokio's blocking pool and back. Here a group of writes
//! pays for one transaction, and a busy writer thread never sleeps between writes.
//!
//! What stays true:
//! - A caller is answered only after its group commits: a reply still means committed.
//! - Each write runs in a savepoint of its own (`tx::write_tx` nests), so a failing write is
//!   rolled back alone. The group then ends there: it commits what came before and takes no
//!   more writes, so an error that undid the whole transaction (SQLite does that on a full
//!   disk or an I/O error) cannot let a later write commit alone.
//! - A write that panics takes its group down with it: the connection is dropped (SQLite rolls
//!   back) and every write of the group is answered with an error.
//! - Durability is SQLite's `synchronous = NORMAL` as before: grouping changes how many
//!   commits there are, not what a commit promises.

use std::{
    panic::{self, AssertUnwindSafe},
    sync::mpsc,
    thread,
};

use sounding_domain::ports::{StoreError, StoreResult};
use tokio::sync::oneshot;

use crate::{
    checkpoint::Checkpointer,
    connection::{DbConnection, DbPool},
    error::{DbError, DbResult},
    failed,
    repos::outbox,
    tx, EventsCommitted,
};

/// Most writes in one group: bounds how long the first of them waits for its reply.
const MAX_GROUP: usize = 64;

/// The queue in front of the writer thread. Clones share the one thread, which ends when the
/// last clone is dropped.
#[derive(Clone)]
pub(crate) struct Writer {
    jobs: mpsc::Sender<Job>,
}

/// A queued write: runs on the writer's connection, inside the group's transaction, and
/// leaves how to answer its caller once the group's fate is known.
type Job = Box<dyn FnOnce(&mut DbConnection) -> Ran + Send>;

struct Ran {
    failed: bool,
    answer: Answer,
    /// Its store's wake-up call for the webhook worker, when the write wrote outbox events.
    events_committed: Option<EventsCommitted>,
}

/// Answers one caller, given how its group's commit went.
type Answer = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

impl Writer {
    /// Starts the writer thread of one database. It takes a connection from `pool` for each
    /// group (so it keeps none from a small pool while idle). It is the only writer of the
    /// file in this process (`DieselStore::for_webhook_worker` shares it), so its `BEGIN IMMEDIATE`
    /// never waits for another writer of ours; `busy_timeout` covers other processes.
    pub(crate) fn start(pool: DbPool) -> std::io::Result<Writer> {
        let (jobs, queue) = mpsc::channel();
        let checkpointer = Checkpointer::start(pool.clone())?;
        thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || serve(&pool, &checkpointer, &queue))?;
        Ok(Writer { jobs })
    }

    /// Runs `f` on the writer thread and answers once its group has committed. `f` makes its
    /// writes in `tx::write_tx`, as on any connection. `events_committed` is called after the
    /// commit if `f` wrote outbox events.
    pub(crate) async fn write<T, F>(
        &self,
        events_committed: Option<EventsCommitted>,
        f: F,
    ) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> DbResult<T> + Send + 'static,
    {
        let (reply, replied) = oneshot::channel();
        let span = tracing::Span::current();
        let job: Job = Box::new(move |conn| {
            let (result, wrote_events) = outbox::noting_events(|| span.in_scope(|| f(conn)));
            Ran {
                failed: result.is_err(),
                events_committed: events_committed.filter(|_| wrote_events),
                answer: Box::new(move |committed| {
                    let answer = match result {
                        Err(error) => Err(failed(error)),
                        Ok(value) => committed.map(|()| value),
                    };
                    // A caller that went away (its request was cancelled) needs no answer;
                    // its write stands, like any write that committed.
                    let _ = reply.send(answer);
                }),
            }
        });
        if self.jobs.send(job).is_err() {
            return Err(StoreError::Unavailable(
                "the database writer has stopped".into(),
            ));
        }
        // The sender is dropped unanswered only when the write panicked.
        replied.await.unwrap_or_else(|_| {
            Err(failed(DbError::Task(
                "the database write failed (a panic in the writer)".into(),
            )))
        })
    }
}

/// The writer thread: a group per wake-up, until every `Writer` is dropped.
fn serve(pool: &DbPool, checkpointer: &Checkpointer, queue: &mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        let mut conn = match pool.get() {
            Ok(conn) => conn,
            Err(error) => {
                // Dropped unrun, the job answers its caller with an error.
                let error = failed(DbError::Pool(error));
                tracing::error!(%error, "the database writer has no connection");
                drop(first);
                continue;
            }
        };
        match run_group(&mut conn, first, queue) {
            Group::Committed(ran) => {
                checkpointer.ask();
                let mut answers = Vec::with_capacity(ran.len());
                for ran in ran {
                    if let Some(callback) = ran.events_committed {
                        callback();
                    }
                    answers.push(ran.answer);
                }
                // Returned to the pool before the callers run on.
                drop(conn);
                answers.into_iter().for_each(|answer| answer(Ok(())));
            }
            Group::Failed(ran, error) => {
                drop(conn);
                ran.into_iter()
                    .for_each(|ran| (ran.answer)(Err(error.clone())));
            }
            Group::Panicked(ran) => {
                // Mid-transaction, in a state nobody knows: the pool finds it broken and
                // closes it, which rolls back.
                drop(conn);
                let error = StoreError::Failure(
                    "the database write was rolled back: another write committed with it \
                     panicked"
                        .into(),
                );
                ran.into_iter()
                    .for_each(|ran| (ran.answer)(Err(error.clone())));
            }
        }
    }
}

/// How a group ended, with the writes that ran in it.
enum Group {
    Committed(Vec<Ran>),
    /// The transaction could not begin or commit: nothing of it was kept.
    Failed(Vec<Ran>, StoreError),
    /// A write panicked (it has no `Ran`); nothing of the others may be kept.
    Panicked(Vec<Ran>),
}

/// Runs `first` and whatever else is queued (at most `MAX_GROUP`) in one write transaction.
fn run_group(conn: &mut DbConnection, first: Job, queue: &mpsc::Receiver<Job>) -> Group {
    let mut done = Vec::new();
    let mut panicked = false;
    let outcome = tx::write_tx(conn, |conn| {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match panic::catch_unwind(AssertUnwindSafe(|| job(conn))) {
                Ok(ran) => {
                    let failed = ran.failed;
                    done.push(ran);
                    if failed {
                        break;
                    }
                }
                Err(_) => {
                    panicked = true;
                    return Err(DbError::Task("a write panicked".into()));
                }
            }
            if done.len() < MAX_GROUP {
                next = queue.try_recv().ok();
            }
        }
        Ok(())
    });
    match (panicked, outcome) {
        (true, _) => Group::Panicked(done),
        (false, Ok(())) => Group::Committed(done),
        (false, Err(error)) => Group::Failed(done, failed(error)),
    }
}

#[cfg(test)]
mod tests {
    use std::{
        future::Future,
        pin::Pin,
        sync::mpsc as std_mpsc,
        task::{Context, Poll, Waker},
    };

    use diesel::{Connection, RunQueryDsl, SqliteConnection};

    use sounding_domain::ports::StoreResult;

    use crate::{connection::DbConnection, error::DbError, tx::write_tx, DieselStore};

    async fn store(dir: &tempfile::TempDir) -> (DieselStore, String) {
        let path = format!("{}/w.db", dir.path().display());
        let store = DieselStore::connect(&format!("sqlite://{path}")).unwrap();
        store
            .run(|conn| {
                write_tx(conn, |conn| {
                    diesel::sql_query("CREATE TABLE t (v INTEGER NOT NULL UNIQUE)")
                        .execute(conn)?;
                    Ok(())
                })
            })
            .await
            .unwrap();
        (store, path)
    }

    fn insert(store: &DieselStore, v: i64) -> impl Future<Output = Result<(), String>> + '_ {
        let written = store.run(move |conn| {
            write_tx(conn, |conn| {
                diesel::sql_query(format!("INSERT INTO t (v) VALUES ({v})")).execute(conn)?;
                Ok(())
            })
        });
        async move { written.await.map_err(|e| e.to_string()) }
    }

    fn values(path: &str) -> Vec<i64> {
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            v: i64,
        }
        let mut conn = SqliteConnection::establish(path).unwrap();
        diesel::sql_query("SELECT v FROM t ORDER BY v")
            .load::<Row>(&mut conn)
            .unwrap()
            .into_iter()
            .map(|row| row.v)
            .collect()
    }

    /// How many rows the writer's connection sees, and how many another connection sees.
    fn counts<'a>(
        store: &'a DieselStore,
        path: &str,
    ) -> impl Future<Output = StoreResult<(i64, i64)>> + 'a {
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        fn count(conn: &mut SqliteConnection) -> i64 {
            diesel::sql_query("SELECT COUNT(*) AS n FROM t")
                .get_result::<Count>(conn)
                .unwrap()
                .n
        }
        let outside = path.to_owned();
        store.run(move |conn| {
            let DbConnection::Sqlite(inner) = conn else {
                return Err(DbError::Task("not SQLite".into()));
            };
            let mut other = SqliteConnection::establish(&outside).unwrap();
            Ok((count(inner), count(&mut other)))
        })
    }

    /// Polls `write` once, which queues its job, and hands it back to be awaited later.
    fn queued<F: Future>(write: F) -> Pin<Box<F>> {
        let mut write = Box::pin(write);
        let polled = write.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        assert!(matches!(polled, Poll::Pending), "answered before it ran");
        write
    }

    /// Holds the writer thread until the returned sender sends (or is dropped), so the writes
    /// queued meanwhile make one group.
    async fn hold_writer(
        store: &DieselStore,
    ) -> (
        std_mpsc::Sender<()>,
        tokio::task::JoinHandle<Result<(), String>>,
    ) {
        let (release, released) = std_mpsc::channel::<()>();
        let (entered, writer_held) = tokio::sync::oneshot::channel();
        let holder = store.clone();
        let held = tokio::spawn(async move {
            holder
                .run(move |_| {
                    entered.send(()).unwrap();
                    let _ = released.recv();
                    Ok(())
                })
                .await
                .map_err(|e| e.to_string())
        });
        writer_held.await.unwrap();
        (release, held)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queued_writes_share_a_transaction_and_a_failing_one_is_undone_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store(&dir).await;
        let (release, held) = hold_writer(&store).await;

        let first = queued(insert(&store, 1));
        // Runs in the first's transaction: sees its row, which no other connection sees yet.
        let sees_in_group = queued(counts(&store, &path));
        let duplicate = queued(insert(&store, 1));
        // The failure ended the group: the first's row is committed by now.
        let sees_after_failure = queued(counts(&store, &path));
        let after_the_failure = queued(insert(&store, 2));
        release.send(()).unwrap();
        assert_eq!(held.await.unwrap(), Ok(()));

        assert_eq!(first.await, Ok(()));
        assert_eq!(
            sees_in_group.await.unwrap(),
            (1, 0),
            "one transaction, not yet committed"
        );
        let refused = duplicate.await;
        assert!(
            refused.as_ref().is_err_and(|e| e.contains("UNIQUE")),
            "{refused:?}"
        );
        assert_eq!(sees_after_failure.await.unwrap(), (1, 1), "a new group");
        assert_eq!(after_the_failure.await, Ok(()));
        assert_eq!(values(&path), [1, 2]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_that_panics_undoes_its_group_and_the_writer_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store(&dir).await;
        let (release, held) = hold_writer(&store).await;

        let before = queued(insert(&store, 10));
        let panics =
            queued(store.run(|_| -> crate::error::DbResult<()> { panic!("a bug in a write") }));
        release.send(()).unwrap();
        assert!(held.await.unwrap().is_err(), "its group was rolled back");
        assert!(before.await.is_err(), "its group was rolled back");
        assert!(panics.await.is_err());
        assert_eq!(values(&path), Vec::<i64>::new());
        assert_eq!(insert(&store, 11).await, Ok(()));
        assert_eq!(values(&path), [11]);
    }

    /// The writer thread is what once needed an in-process write gate: every write of a
    /// database (its store's and those of a store `for_webhook_worker` made from it) runs on one
    /// thread, so two of ours never race for SQLite's write lock, and another database's
    /// writes run on a thread of their own.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_write_of_a_database_runs_on_its_one_writer_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = store(&dir).await;
        let worker = store.for_webhook_worker(2).unwrap();
        let other =
            DieselStore::connect(&format!("sqlite://{}/o.db", dir.path().display())).unwrap();
        async fn thread_of(store: &DieselStore) -> std::thread::ThreadId {
            store
                .run(|_| Ok::<_, DbError>(std::thread::current().id()))
                .await
                .unwrap()
        }
        let writer = thread_of(&store).await;
        assert_ne!(writer, std::thread::current().id());
        assert_eq!(thread_of(&store).await, writer);
        assert_eq!(
            thread_of(&worker).await,
            writer,
            "its own pool, the same writer"
        );
        assert_ne!(
            thread_of(&other).await,
            writer,
            "another database, another writer"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_writes_queue_instead_of_failing_with_database_is_locked() {
        const WRITERS: i64 = 8;
        const WRITES_EACH: i64 = 25;
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store(&dir).await;
        let worker = store.for_webhook_worker(2).unwrap();
        let mut writers = tokio::task::JoinSet::new();
        for writer in 0..WRITERS {
            let store = if writer % 2 == 0 {
                store.clone()
            } else {
                worker.clone()
            };
            writers.spawn(async move {
                for i in 0..WRITES_EACH {
                    insert(&store, writer * 1000 + i)
                        .await
                        .unwrap_or_else(|e| panic!("writer {writer} write {i} failed: {e}"));
                }
            });
        }
        writers.join_all().await;
        assert_eq!(
            values(&path).len(),
            usize::try_from(WRITERS * WRITES_EACH).unwrap()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_of_different_databases_do_not_queue_behind_each_other() {
        let (first_dir, second_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (first, _) = store(&first_dir).await;
        let (second, second_path) = store(&second_dir).await;
        let (release, held) = hold_writer(&first).await;
        // With one writer for the process, this write would wait for the release below.
        let written =
            tokio::time::timeout(std::time::Duration::from_secs(30), insert(&second, 1)).await;
        release.send(()).unwrap();
        assert_eq!(written, Ok(Ok(())), "the second database's write was held");
        assert_eq!(held.await.unwrap(), Ok(()));
        assert_eq!(values(&second_path), [1]);
    }
}
