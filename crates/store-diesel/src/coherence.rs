//! PostgreSQL only: a commit count shared by every instance on one database, so the read cache
//! (`read_cache`) can serve PostgreSQL too and stay coherent across instances.
//!
//! PostgreSQL has no `PRAGMA data_version`, so each instance keeps one connection of its own
//! (the link) that `LISTEN`s on two channels: `sounding_changes`, which every instance
//! notifies after each write it commits, and a channel only it listens on, for its rounds.
//!
//! A **round** is one statement on the link that notifies the instance's own channel with a
//! fresh token (and `sounding_changes` too when a write of this instance waits to be
//! announced). PostgreSQL delivers notifications in the order their transactions committed,
//! and a session gets its own before its statement's answer is complete. So when the link
//! reads back its token, it has read every `sounding_changes` of every transaction that
//! committed before the round began; if there was one, the local commit count moves on.
//! A read asks for the count by waiting for a round that begins after it asked (`ask`),
//! which is exactly `PRAGMA data_version`'s promise: no commit that finished before the
//! request asked is missing from the answer. A write is acknowledged only after a round has
//! announced it (`announce`), so every other instance's next read sees it.
//!
//! Rounds are shared: every read and write that asked while a round was under way waits for
//! the next one, so under load one round trip serves many requests. The link commits its
//! notifications with `synchronous_commit = off`: they hold PostgreSQL's notification lock
//! only for the commit itself, never for a disk flush, and a crash loses nothing a
//! notification stands for (the data's own commit was durable).
//!
//! While the link is down, `ask` answers `None` (read uncached) at once. After it comes back
//! the count moves on (notifications may have been missed) and the first round announces a
//! change (writes of this instance may have gone unannounced). docs/storage.md, "Read cache".

use std::{
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    thread,
    time::{Duration, Instant},
};

use diesel::{connection::SimpleConnection, pg::PgConnection, Connection};
use tokio::sync::oneshot;

/// The channel every instance notifies after a commit, and every instance listens on.
const CHANGES: &str = "sounding_changes";

/// What the link calls itself in `pg_stat_activity`.
pub const APPLICATION_NAME: &str = "sounding coherence";

/// How long the link sleeps between rounds when nobody asks: it then only reads what other
/// instances sent, so PostgreSQL's notification queue never waits on this instance.
const IDLE_READ: Duration = Duration::from_millis(500);

/// How long a round may wait for its own token after its statement answered (it is normally
/// already there) before the link counts as broken.
const TOKEN_WAIT: Duration = Duration::from_secs(2);

/// How long after a failed connection attempt the link tries again; meanwhile reads go uncached.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// How long after a round's token failed to come back the link tries again: such a link is
/// likely to stay deaf (see `round`), and reads go uncached at once meanwhile.
const DEAF_RETRY_AFTER: Duration = Duration::from_secs(30);

const TOKEN_MISSING: &str = "the round's own notification did not come back";

/// The handle the read cache holds; dropping the last one ends the link's thread.
pub(crate) struct Coherence {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<Waiting>,
    wake: Condvar,
}

#[derive(Default)]
struct Waiting {
    /// Reads waiting for the commit count of a round that begins after they asked.
    asks: Vec<oneshot::Sender<Option<i64>>>,
    /// Writes of this instance waiting for a round to announce them.
    announces: Vec<oneshot::Sender<()>>,
    /// The handle is gone: the thread ends.
    closed: bool,
}

impl Coherence {
    /// Starts the link to the PostgreSQL database at `url` on a thread of its own; it connects
    /// on its first round.
    pub(crate) fn start(url: String) -> std::io::Result<Coherence> {
        let shared = Arc::new(Shared {
            state: Mutex::new(Waiting::default()),
            wake: Condvar::new(),
        });
        let link = Link::new(url, shared.clone());
        thread::Builder::new()
            .name("sounding-coherence".into())
            .spawn(move || link.run())?;
        Ok(Coherence { shared })
    }

    /// The commit count as of a round that began after this call, or `None` when the link is
    /// down (the caller then reads without the cache).
    pub(crate) async fn ask(&self) -> Option<i64> {
        let (answer, asked) = oneshot::channel();
        self.shared.lock().asks.push(answer);
        self.shared.wake.notify_one();
        asked.await.ok().flatten()
    }

    /// Returns once a round has told every instance that this instance committed a write.
    pub(crate) async fn announce(&self) {
        let (done, announced) = oneshot::channel();
        self.shared.lock().announces.push(done);
        self.shared.wake.notify_one();
        // An error means the thread is gone; the write itself is committed either way.
        let _ = announced.await;
    }
}

impl Drop for Coherence {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The link's thread: its connection, its channel and the count it keeps.
struct Link {
    url: String,
    shared: Arc<Shared>,
    /// This instance's own channel (a fresh name per link, so per instance).
    channel: String,
    conn: Option<PgConnection>,
    /// When to try connecting again after a failure.
    retry_at: Option<Instant>,
    /// The last round's token.
    token: u64,
    /// The commit count: moves on with every round that saw a change.
    count: i64,
    /// A change must be announced on the next round (after a reconnect).
    owe_announce: bool,
}

impl Link {
    fn new(url: String, shared: Arc<Shared>) -> Link {
        Link {
            url,
            shared,
            channel: format!("sounding_round_{}", uuid::Uuid::new_v4().simple()),
            conn: None,
            retry_at: None,
            token: 0,
            count: 0,
            owe_announce: false,
        }
    }

    fn run(mut self) {
        loop {
            let (asks, announces) = {
                let mut waiting = self.shared.lock();
                while !waiting.closed && waiting.asks.is_empty() && waiting.announces.is_empty() {
                    let (guard, timeout) = self
                        .shared
                        .wake
                        .wait_timeout(waiting, IDLE_READ)
                        .unwrap_or_else(PoisonError::into_inner);
                    waiting = guard;
                    if timeout.timed_out() {
                        drop(waiting);
                        self.read_idle();
                        waiting = self.shared.lock();
                    }
                }
                if waiting.closed {
                    return;
                }
                (
                    std::mem::take(&mut waiting.asks),
                    std::mem::take(&mut waiting.announces),
                )
            };
            let answer = self.round(!announces.is_empty());
            for ask in asks {
                let _ = ask.send(answer);
            }
            for announce in announces {
                let _ = announce.send(());
            }
        }
    }

    /// One round: the commit count after it, or `None` when the link is down. A link found
    /// broken is opened again at once and the round tried once more: a write waiting to be
    /// announced must not be acknowledged unannounced because a connection had gone stale.
    fn round(&mut self, announce: bool) -> Option<i64> {
        self.try_round(announce).or_else(|| {
            if self.conn.is_none() && self.retry_at.is_none() {
                self.try_round(announce)
            } else {
                None
            }
        })
    }

    fn try_round(&mut self, announce: bool) -> Option<i64> {
        let announce = announce || self.owe_announce;
        if self.conn.is_none() && !self.connect() {
            if announce {
                // Announced when the link is back: every instance then counts a change.
                self.owe_announce = true;
            }
            return None;
        }
        self.token += 1;
        let token = self.token;
        let notify_own = format!("pg_notify('{}', '{token}')", self.channel);
        let statement = if announce {
            format!("SELECT pg_notify('{CHANGES}', ''), {notify_own}")
        } else {
            format!("SELECT {notify_own}")
        };
        let conn = self.conn.as_mut()?;
        let outcome = conn
            .batch_execute(&statement)
            .map_err(|e| e.to_string())
            .and_then(|()| read_until(conn, &self.channel, Some(token)));
        match outcome {
            Ok(changed) => {
                self.owe_announce = false;
                if changed {
                    self.count += 1;
                }
                Some(self.count)
            }
            Err(error) => {
                tracing::warn!(%error, "read cache: the coherence link failed; reading uncached until it is back");
                self.conn = None;
                self.owe_announce |= announce;
                if error == TOKEN_MISSING {
                    // Not a dead socket but a link that cannot hear itself (a pooler in
                    // transaction mode): waiting for it again would hold every read up.
                    tracing::warn!(
                        "read cache: the coherence link needs a session of its own \
                         (PostgreSQL itself or a session-mode pooler); reading uncached"
                    );
                    self.retry_at = Some(Instant::now() + DEAF_RETRY_AFTER);
                }
                None
            }
        }
    }

    /// Connects and listens; on success the count moves on, since notifications sent while
    /// the link was down are lost.
    fn connect(&mut self) -> bool {
        if self.retry_at.is_some_and(|at| Instant::now() < at) {
            return false;
        }
        let listen = format!(
            "SET application_name = '{APPLICATION_NAME}'; SET synchronous_commit = off; \
             LISTEN {CHANGES}; LISTEN {};",
            self.channel
        );
        let connected = PgConnection::establish(&self.url)
            .map_err(|e| e.to_string())
            .and_then(|mut conn| {
                conn.batch_execute(&listen).map_err(|e| e.to_string())?;
                Ok(conn)
            });
        match connected {
            Ok(conn) => {
                let reconnected = self.token > 0 || self.retry_at.is_some();
                self.conn = Some(conn);
                self.retry_at = None;
                self.count += 1;
                self.owe_announce |= reconnected;
                true
            }
            Err(error) => {
                tracing::warn!(%error, "read cache: cannot open the coherence link; reading uncached");
                self.retry_at = Some(Instant::now() + RECONNECT_AFTER);
                false
            }
        }
    }

    /// Between rounds: reads what other instances sent (it would otherwise pile up in
    /// PostgreSQL's queue), moving the count on if it holds a change.
    fn read_idle(&mut self) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        match read_until(conn, &self.channel, None) {
            Ok(true) => self.count += 1,
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(%error, "read cache: the coherence link failed while idle");
                self.conn = None;
                self.count += 1;
            }
        }
    }
}

/// Reads the notifications the link has received, until `token` on `channel` when given
/// (waiting up to `TOKEN_WAIT` for it), else until none is left. True when one of them was a
/// change.
fn read_until(conn: &mut PgConnection, channel: &str, token: Option<u64>) -> Result<bool, String> {
    let deadline = Instant::now() + TOKEN_WAIT;
    let token = token.map(|t| t.to_string());
    let mut changed = false;
    loop {
        let mut seen = false;
        for notification in conn.notifications_iter() {
            let notification = notification.map_err(|e| e.to_string())?;
            if notification.channel == CHANGES {
                changed = true;
            } else if notification.channel == channel
                && token.as_deref() == Some(notification.payload.as_str())
            {
                seen = true;
            }
        }
        if token.is_none() || seen {
            return Ok(changed);
        }
        if Instant::now() >= deadline {
            return Err(TOKEN_MISSING.into());
        }
        thread::sleep(Duration::from_micros(200));
    }
}
