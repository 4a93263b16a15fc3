//! SQLite WAL checkpoints on a thread of their own, so the writer thread (`writer`) never
//! stops for one.
//!
//! Why: by default the connection whose commit takes the WAL past 1,000 pages copies them back
//! into the database file and syncs it, before its caller is answered. With one writer thread
//! that commit was the writer's, and every write queued behind it waited for the copy and the
//! `fsync` (docs/benchmarks.md, "fifth round"). A `PASSIVE` checkpoint needs no lock the writer
//! holds, so here it runs beside the writes: after a commit has asked for one, at most one
//! every `PAUSE`. Durability is unchanged: a commit is durable at `synchronous = NORMAL` once
//! its WAL frames are written, whoever copies them later.
//!
//! SQLite's own automatic checkpoint stays as a backstop, moved to `BACKSTOP_PAGES`
//! (`connection::SQLITE_PRAGMAS`): should this thread fall behind, the WAL still stops growing.

use std::{
    sync::mpsc::{self, Receiver, SyncSender, TryRecvError},
    thread,
    time::Duration,
};

use diesel::connection::SimpleConnection;

use crate::connection::{DbConnection, DbPool};

/// How long commits gather between checkpoints: one copies each changed page once, however
/// often it changed meanwhile.
const PAUSE: Duration = Duration::from_millis(50);

/// Where SQLite's own automatic checkpoint takes over (pages of WAL); its default is 1,000.
pub(crate) const BACKSTOP_PAGES: u32 = 10_000;

/// Asks the checkpoint thread of one database for a checkpoint. The thread ends when this is
/// dropped.
pub(crate) struct Checkpointer {
    asks: SyncSender<()>,
}

impl Checkpointer {
    /// Starts the checkpoint thread, which takes a connection from `pool` for each checkpoint.
    pub(crate) fn start(pool: DbPool) -> std::io::Result<Checkpointer> {
        // One ask waiting is enough: asks made meanwhile are served by the same checkpoint.
        let (asks, asked) = mpsc::sync_channel(1);
        thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || serve(&pool, &asked))?;
        Ok(Checkpointer { asks })
    }

    /// Asks for a checkpoint soon (after a commit). Never waits.
    pub(crate) fn ask(&self) {
        let _ = self.asks.try_send(());
    }
}

fn serve(pool: &DbPool, asked: &Receiver<()>) {
    while asked.recv().is_ok() {
        thread::sleep(PAUSE);
        if let Err(TryRecvError::Disconnected) = asked.try_recv() {
            return;
        }
        let checkpointed = pool
            .get()
            .map_err(|e| e.to_string())
            .and_then(|mut conn| checkpoint(&mut conn).map_err(|e| e.to_string()));
        if let Err(error) = checkpointed {
            // The backstop keeps the WAL bounded meanwhile; the next commit asks again.
            tracing::warn!(%error, "WAL checkpoint failed");
        }
    }
}

/// Copies what it can of the WAL into the database file, waiting for no reader or writer.
fn checkpoint(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    match conn {
        DbConnection::Sqlite(inner) => inner.batch_execute("PRAGMA wal_checkpoint(PASSIVE)"),
        DbConnection::Postgresql(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use diesel::RunQueryDsl;

    use crate::{tx::write_tx, DieselStore};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commits_reach_the_database_file_without_the_automatic_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        let store = DieselStore::connect(&format!("sqlite://{}", path.display())).unwrap();
        let file_size = || std::fs::metadata(&path).unwrap().len();
        let before = file_size();
        // About 1 MB, far below the backstop's 10,000 pages: only a checkpoint of this module
        // copies it from the WAL into the file.
        store
            .run(|conn| {
                write_tx(conn, |conn| {
                    diesel::sql_query("CREATE TABLE t (v TEXT NOT NULL)").execute(conn)?;
                    for _ in 0..256 {
                        diesel::sql_query("INSERT INTO t (v) VALUES (hex(randomblob(2048)))")
                            .execute(conn)?;
                    }
                    Ok(())
                })
            })
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while file_size() < before + 1_000_000 {
            assert!(
                Instant::now() < deadline,
                "nothing was checkpointed: the file is {} bytes",
                file_size()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
