//! PostgreSQL only: writes of one kind that arrive while another of theirs is running are
//! run together, by one statement that gives every write its own outcome.
//!
//! Why: on PostgreSQL a short write's cost is mostly per statement (parse, plan, executor
//! start, commit: docs/benchmarks.md, twentieth round), so a vote cast as part of a statement
//! that casts sixteen costs the engine about half of one cast alone. Writes queue here only
//! while a batch is running already, so an idle server still runs each write at once, alone.
//!
//! What stays true:
//! - A caller is answered after its batch's statement committed, and after the read cache
//!   announced it (`DieselStore::run_unnoted`), as any write: a reply still means committed.
//! - Each write gets its own outcome. When a batch statement fails, its writes run again one
//!   by one (`together_or_alone`), so one write that cannot go in never fails the others.
//! - A batch runs with the store that queued its first write (its pool, its wake-up call for
//!   the webhook worker, its read cache), so every store with settings of its own has a queue
//!   of its own (`DieselStore::on_events_committed`, `with_own_pool`), and in that write's
//!   tracing span.
//! - A caller that goes away leaves its write queued; it commits like any other.

use std::{
    mem,
    sync::{Arc, Mutex, PoisonError},
};

use sounding_domain::ports::{StoreError, StoreResult};
use tokio::sync::oneshot;
use tracing::Instrument;

use diesel::PgConnection;

use crate::{connection::DbConnection, error::DbResult, failed, tx, DieselStore};

/// Batches running at once per kind. One: the writes that arrive meanwhile make the next
/// batch, and fewer, larger batches cost the engine less (S4 on PostgreSQL: two at once made
/// batches of 5 votes on average, one makes batches of 11 and casts 1.4 times as many votes;
/// docs/benchmarks.md, twenty-first round).
const MAX_RUNNING: usize = 1;

/// Most writes in one batch: bounds the statement, and how long the first of them waits.
const MAX_BATCH: usize = 64;

/// Runs a batch on one connection: the outcome of each write, in the order given.
pub(crate) type RunBatch<I, O> = fn(&mut DbConnection, Vec<I>) -> Vec<DbResult<O>>;

/// Runs `writes` by `together`, one PostgreSQL statement for them all (each write's outcome, in
/// order). Should that statement fail, PostgreSQL kept nothing of it, and each write runs again
/// by `alone`, so a write that cannot go in fails alone. On SQLite, which queues no batches,
/// each write runs `alone`.
pub(crate) fn together_or_alone<I, O>(
    conn: &mut DbConnection,
    writes: &[I],
    together: impl FnOnce(&mut PgConnection, &[I]) -> DbResult<Vec<O>>,
    alone: impl Fn(&mut DbConnection, &I) -> DbResult<O>,
) -> Vec<DbResult<O>> {
    let outcomes = match conn {
        DbConnection::Postgresql(pg) => tx::one_statement(pg, |pg| together(pg, writes)),
        _ => return writes.iter().map(|write| alone(conn, write)).collect(),
    };
    match outcomes {
        Ok(outcomes) => outcomes.into_iter().map(Ok).collect(),
        Err(error) if writes.len() == 1 => vec![Err(error)],
        Err(error) => {
            tracing::debug!(
                ?error,
                writes = writes.len(),
                "a batch failed: running its writes one by one"
            );
            writes.iter().map(|write| alone(conn, write)).collect()
        }
    }
}

/// The queue of one kind of write. Clones share it.
pub(crate) struct Batcher<I, O> {
    shared: Arc<Shared<I, O>>,
}

impl<I, O> Clone for Batcher<I, O> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

struct Shared<I, O> {
    queue: Mutex<Queue<I, O>>,
    run: RunBatch<I, O>,
}

struct Queue<I, O> {
    waiting: Vec<Waiting<I, O>>,
    /// Batches running now, each on a task of its own (`drain`).
    running: usize,
}

struct Waiting<I, O> {
    write: I,
    reply: oneshot::Sender<StoreResult<O>>,
}

impl<I, O> Batcher<I, O>
where
    I: Send + 'static,
    O: Send + 'static,
{
    pub(crate) fn new(run: RunBatch<I, O>) -> Self {
        Self {
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue {
                    waiting: Vec::new(),
                    running: 0,
                }),
                run,
            }),
        }
    }

    /// Runs `write` in the next batch of `store` and returns its outcome once that batch has
    /// committed.
    pub(crate) async fn submit(&self, store: &DieselStore, write: I) -> StoreResult<O> {
        let (reply, replied) = oneshot::channel();
        let start = {
            let mut queue = self.lock();
            queue.waiting.push(Waiting { write, reply });
            let start = queue.running < MAX_RUNNING;
            if start {
                queue.running += 1;
            }
            start
        };
        if start {
            let turn = Turn {
                batcher: self.clone(),
                done: false,
            };
            tokio::spawn(drain(turn, store.clone()).instrument(tracing::Span::current()));
        }
        // The sender is dropped unanswered only when its batch's task panicked.
        replied.await.unwrap_or_else(|_| {
            Err(StoreError::Failure(
                "the database write failed (its batch stopped)".into(),
            ))
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<I, O>> {
        // The queue is never left half-changed: a panic elsewhere does not spoil it.
        self.shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The writes waiting, at most `MAX_BATCH`; none ends this task's turn (`running` drops
    /// under the same lock that `submit` checks, so no write is left without a task).
    fn next_batch(&self) -> Option<Vec<Waiting<I, O>>> {
        let mut queue = self.lock();
        if queue.waiting.is_empty() {
            queue.running -= 1;
            return None;
        }
        let first = queue.waiting.len().min(MAX_BATCH);
        let later = queue.waiting.split_off(first);
        Some(mem::replace(&mut queue.waiting, later))
    }
}

/// A task's turn at running batches (`drain`). Should the task end before the queue is empty
/// (dropped with the runtime, or a panic), it gives its place back, and the writes no task
/// will run are answered with an error instead of never.
struct Turn<I, O> {
    batcher: Batcher<I, O>,
    /// The task ended its turn itself (`next_batch` found the queue empty).
    done: bool,
}

impl<I, O> Drop for Turn<I, O> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut queue = self
            .batcher
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queue.running -= 1;
        if queue.running == 0 {
            // Their senders dropped, the callers hear that the batch stopped.
            queue.waiting.clear();
        }
    }
}

/// One running batch after another, while writes wait.
async fn drain<I, O>(mut turn: Turn<I, O>, store: DieselStore)
where
    I: Send + 'static,
    O: Send + 'static,
{
    let batcher = turn.batcher.clone();
    loop {
        let Some(batch) = batcher.next_batch() else {
            turn.done = true;
            return;
        };
        let (writes, replies): (Vec<I>, Vec<_>) = batch
            .into_iter()
            .map(|waiting| (waiting.write, waiting.reply))
            .unzip();
        let run = batcher.shared.run;
        match store.run_unnoted(move |conn| Ok(run(conn, writes))).await {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    // A caller that went away needs no answer; its write stands.
                    let _ = reply.send(outcome.map_err(failed));
                }
            }
            Err(error) => {
                for reply in replies {
                    let _ = reply.send(Err(error.clone()));
                }
            }
        }
    }
}
