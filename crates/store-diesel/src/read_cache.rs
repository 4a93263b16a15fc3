//! The hottest reads (a key's grant, a team, a board, an item, a board's list, a topic and its
//! threads) remembered until the database changes, whoever changes it.
//!
//! On SQLite, SQLite counts commits for us: `PRAGMA data_version` answers a different number on a
//! connection once any other connection, of this process or another (the `sounding` admin
//! commands, a second server on the same file), has committed. Every remembered answer carries
//! the number read *before* the read that produced it, and is given out only while a fresh
//! `PRAGMA data_version` still answers that number. So an answer is never older than the last
//! commit that finished before the request asked, which is what an uncached read gives too
//! (a 2xx for a write means committed; a later read sees it). The numbers are only comparable
//! on one connection, so one connection of its own asks, and is never replaced.
//!
//! Any commit makes every remembered answer useless, so under writes this does little, and
//! a request's reads cost one `PRAGMA` more (about 2 µs, mostly the `fcntl` calls of a WAL
//! read lock; asked once per request, `one_request`); answers
//! are kept only while the database is quiet (`Asked::quiet`). Between writes, a read is a
//! hash lookup and a clone instead of several statements (docs/storage.md, "Read cache").
//!
//! PostgreSQL has no such counter: there the count is kept by every instance's link to the
//! database (`coherence`), with the same promise, so a write through one instance is seen by
//! the next read through any other.

use std::{
    any::Any,
    borrow::Borrow,
    hash::{BuildHasher, Hash, RandomState},
    sync::{
        atomic::{AtomicI64, Ordering},
        Arc, Mutex, PoisonError,
    },
};

use diesel::{
    connection::SimpleConnection,
    query_builder::{AstPass, Query, QueryFragment, QueryId},
    sql_types::BigInt,
    sqlite::Sqlite,
    Connection, QueryResult, RunQueryDsl, SqliteConnection,
};
use quick_cache::{sync::Cache, Weighter};
use sounding_domain::{
    api_key::ApiKeyGrant,
    board::BoardView,
    feedback::{FeedbackQuery, FeedbackView},
    ids::{BoardId, FeedbackId, TeamId, TopicId},
    page::Paged,
    subscriber::SubscriberRef,
    team::Team,
    topic::TopicView,
    topic_comment::{CommentThread, ThreadQuery, TopicCommentView},
    Timestamp,
};

use crate::{
    coherence::Coherence,
    error::{DbError, DbResult},
    packed_view::PackedView,
};

/// What the remembered answers may weigh in all, by the estimates of `Keep::weight` (bytes
/// of heap and inline data, roughly). One budget for every kind of answer, so the kind being
/// read most gets the room: about 55,000 items of the bench's size (packed, `packed_view`)
/// when only items are read.
pub(crate) const DEFAULT_BUDGET_BYTES: u64 = 24 * 1024 * 1024;

/// A commit count of the database, as `PRAGMA data_version` answers it on the cache's own
/// connection.
type Version = i64;

pub(crate) struct ReadCache {
    versions: Versions,
    /// The count the previous ask got, for `Asked::quiet`.
    last_version: AtomicI64,
    pub(crate) keys: Memo<String, Option<ApiKeyGrant>>,
    pub(crate) teams: Memo<TeamId, Option<Team>>,
    pub(crate) boards: Memo<(TeamId, BoardId), Option<BoardView>>,
    pub(crate) items: Memo<(TeamId, FeedbackId), Option<FeedbackView>>,
    pub(crate) lists: Memo<(TeamId, FeedbackQuery), Paged<FeedbackView>>,
    pub(crate) topics: Memo<(TeamId, TopicId), Option<TopicView>>,
    pub(crate) threads: Memo<(TeamId, ThreadQuery), Paged<CommentThread>>,
    /// Whole answers of an adapter (`AnswerStore`), under its keys.
    pub(crate) answers: Memo<Box<[u8]>, KeptAnswer>,
}

/// Where the commit count comes from.
enum Versions {
    /// The connection that asks `PRAGMA data_version` (only ever this one, see the module).
    Sqlite(Mutex<SqliteConnection>),
    /// The instance's link to PostgreSQL.
    Postgres(Coherence),
}

impl std::fmt::Debug for ReadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadCache").finish_non_exhaustive()
    }
}

/// `PRAGMA data_version` as a query of its own type, so diesel finds its prepared statement by
/// type rather than by rendering and hashing its text: it runs before every cached read.
#[derive(Debug, Clone, Copy, QueryId)]
struct DataVersion;

impl QueryFragment<Sqlite> for DataVersion {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql("PRAGMA data_version");
        Ok(())
    }
}

impl Query for DataVersion {
    type SqlType = BigInt;
}

impl RunQueryDsl<SqliteConnection> for DataVersion {}

impl ReadCache {
    /// A cache of the SQLite database at `path`, holding about `budget_bytes` of answers.
    pub(crate) fn open_sqlite(path: &str, budget_bytes: u64) -> DbResult<ReadCache> {
        let mut conn = SqliteConnection::establish(path)
            .map_err(|e| DbError::Task(format!("read cache connection: {e}")))?;
        conn.batch_execute("PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;")?;
        Ok(Self::with(Versions::Sqlite(Mutex::new(conn)), budget_bytes))
    }

    /// A cache of the PostgreSQL database at `url`, holding about `budget_bytes` of answers,
    /// kept coherent with every other instance on the database (`coherence`).
    pub(crate) fn open_postgres(url: &str, budget_bytes: u64) -> DbResult<ReadCache> {
        let coherence = Coherence::start(url.to_owned())
            .map_err(|e| DbError::Task(format!("could not start the coherence link: {e}")))?;
        Ok(Self::with(Versions::Postgres(coherence), budget_bytes))
    }

    fn with(versions: Versions, budget_bytes: u64) -> ReadCache {
        let answers = Answers::new(budget_bytes);
        ReadCache {
            versions,
            last_version: AtomicI64::new(Version::MIN),
            keys: Memo::of(&answers, Kind::Key),
            teams: Memo::of(&answers, Kind::Team),
            boards: Memo::of(&answers, Kind::Board),
            items: Memo::of(&answers, Kind::Item),
            lists: Memo::of(&answers, Kind::List),
            topics: Memo::of(&answers, Kind::Topic),
            threads: Memo::of(&answers, Kind::Thread),
            answers: Memo::of(&answers, Kind::Answer),
        }
    }

    /// The database's commit count now, and whether it is the one the previous ask got;
    /// `None` when it cannot be known (the caller reads uncached).
    pub(crate) async fn version(&self) -> Option<Asked> {
        let version = match &self.versions {
            Versions::Sqlite(conn) => {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                match DataVersion.get_result::<Version>(&mut *conn) {
                    Ok(version) => version,
                    Err(error) => {
                        let error = sounding_domain::ports::StoreError::from(DbError::from(error));
                        tracing::warn!(%error, "read cache: no data_version; reading uncached");
                        return None;
                    }
                }
            }
            Versions::Postgres(coherence) => coherence.ask().await?,
        };
        let quiet = self.last_version.swap(version, Ordering::Relaxed) == version;
        Some(Asked { version, quiet })
    }

    /// Called after every write transaction of this instance: on PostgreSQL it returns once
    /// every other instance's next read will see the write (`coherence`). SQLite sees every
    /// commit by itself.
    pub(crate) async fn wrote(&self) {
        if let Versions::Postgres(coherence) = &self.versions {
            coherence.announce().await;
        }
    }
}

tokio::task_local! {
    /// The commit count the reads of the request being handled go by (`one_request`).
    static REQUEST_READS: std::cell::Cell<Option<Asked>>;
}

/// Runs `request` (the handling of one API request) so that its cached reads ask for the
/// database's commit count once, at the first of them, instead of once each: on SQLite each
/// ask is a read transaction, two `fcntl` calls, about 2 µs — a seventh of a cached
/// `feedbacks.info`, which made two (docs/benchmarks.md). The answers are as fresh as the
/// promise of `read_cache` needs: the count is asked after the request's head arrived, so no
/// commit that finished before the client began sending it is missed; and a write of the request forgets the count,
/// so its later reads see what it wrote. Outside such a scope (the webhook worker, tests),
/// every cached read asks.
pub async fn one_request<F: std::future::Future>(request: F) -> F::Output {
    REQUEST_READS
        .scope(std::cell::Cell::new(None), request)
        .await
}

/// The request scope of `one_request`, as the store uses it.
pub(crate) struct RequestReads;

impl RequestReads {
    /// The commit count for a cached read: the one this request asked already, or a new ask.
    pub(crate) async fn version(cache: &ReadCache) -> Option<Asked> {
        if let Ok(Some(asked)) = REQUEST_READS.try_with(std::cell::Cell::get) {
            return Some(asked);
        }
        let asked = cache.version().await?;
        let _outside_a_request = REQUEST_READS.try_with(|reads| reads.set(Some(asked)));
        Some(asked)
    }

    /// Called after every write, whether it succeeded or not: the next read of this request
    /// asks again.
    pub(crate) fn forget() {
        let _outside_a_request = REQUEST_READS.try_with(|reads| reads.set(None));
    }
}

/// One ask of `PRAGMA data_version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Asked {
    pub(crate) version: Version,
    /// Nothing was committed since the ask before. Answers are kept only then: under a
    /// stream of writes (votes) every answer would be dropped unused at the next ask, and
    /// copying it into the cache cost the write path for nothing.
    pub(crate) quiet: bool,
}

/// Every remembered answer, of every kind, in one cache under one budget. An answer is filed
/// under a hash of its kind and key and keeps its key, so two keys of one hash only push each
/// other out: a lookup gives an answer only for the key it was kept under.
#[derive(Clone)]
struct Answers {
    cache: Arc<Cache<u64, Stamped, ByWeight>>,
    hasher: RandomState,
}

impl Answers {
    fn new(budget_bytes: u64) -> Self {
        // quick_cache sizes its tables from an item count; 1 KiB an answer is a fair guess.
        let items = usize::try_from((budget_bytes / 1024).max(16)).unwrap_or(usize::MAX);
        Answers {
            cache: Arc::new(Cache::with_weighter(items, budget_bytes.max(1), ByWeight)),
            hasher: RandomState::new(),
        }
    }
}

/// What a remembered answer answers: part of its hash, and kept with it, so equal keys of two
/// kinds never answer for each other even when their hashes meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Key,
    Team,
    Board,
    Item,
    List,
    Topic,
    Thread,
    Answer,
}

/// The remembered answers of one read, a typed view of the shared `Answers`.
pub(crate) struct Memo<K, V> {
    answers: Answers,
    kind: Kind,
    read: std::marker::PhantomData<fn(K) -> V>,
}

/// A remembered answer (a `(K, V::Kept)`, the key with its answer as kept), with its kind, the
/// commit count it was read at and its weight, reckoned once when it is kept: quick_cache asks for the
/// weight again while evicting, and a page of threads is a walk over every comment.
#[derive(Clone)]
struct Stamped {
    kind: Kind,
    version: Version,
    weight: u64,
    answer: Arc<dyn Any + Send + Sync>,
}

impl<K, V> Memo<K, V>
where
    K: Eq + Hash + Clone + Send + Sync + 'static,
    V: Keep,
{
    fn of(answers: &Answers, kind: Kind) -> Self {
        Memo {
            answers: answers.clone(),
            kind,
            read: std::marker::PhantomData,
        }
    }

    #[cfg(test)]
    fn new(budget_bytes: u64) -> Self {
        Self::of(&Answers::new(budget_bytes), Kind::Item)
    }

    /// Where `key` is filed. A key and what it borrows as hash alike (`Borrow`'s contract), so
    /// a lookup needs no key of its own (`get`).
    fn slot<Q: Hash + ?Sized>(&self, key: &Q) -> u64 {
        self.answers.hasher.hash_one((self.kind, key))
    }

    /// The answer to `key` read at `version`, if there is one.
    pub(crate) fn get<Q>(&self, key: &Q, version: Version) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let kept = self.answers.cache.get(&self.slot(key))?;
        if kept.kind != self.kind || kept.version != version {
            return None;
        }
        match kept.answer.downcast_ref::<(K, V::Kept)>() {
            Some((kept_key, answer)) if kept_key.borrow() == key => V::give(answer),
            _ => None,
        }
    }

    /// Remembers `answer`, read after `version` was asked.
    pub(crate) fn put(&self, key: K, version: Version, answer: &V) {
        let Some(kept) = answer.keep() else {
            return;
        };
        let slot = self.slot::<K>(&key);
        self.answers.cache.insert(
            slot,
            Stamped {
                kind: self.kind,
                version,
                // Never zero: zero-weight entries are never evicted.
                weight: V::weight(&kept).max(1),
                answer: Arc::new((key, kept)),
            },
        );
    }
}

/// How an answer is kept in the cache and given back out.
pub(crate) trait Keep: Sized + Send + Sync + 'static {
    /// What the cache holds.
    type Kept: Send + Sync + 'static;
    /// `self` as kept; `None` when it is not kept.
    fn keep(&self) -> Option<Self::Kept>;
    /// The answer again; `None` when it cannot be had (the read goes to the database).
    fn give(kept: &Self::Kept) -> Option<Self>;
    /// Roughly how many bytes `kept` holds.
    fn weight(kept: &Self::Kept) -> u64;
}

/// Answers kept as they are, and cloned out.
macro_rules! kept_as_is {
    ($($answer:ty),* $(,)?) => {$(
        impl Keep for $answer {
            type Kept = $answer;
            fn keep(&self) -> Option<Self::Kept> {
                Some(self.clone())
            }
            fn give(kept: &Self::Kept) -> Option<Self> {
                Some(kept.clone())
            }
            fn weight(kept: &Self::Kept) -> u64 {
                Weight::weight(kept)
            }
        }
    )*};
}

kept_as_is!(
    Option<ApiKeyGrant>,
    Option<Team>,
    Option<BoardView>,
    Paged<FeedbackView>,
    Option<TopicView>,
    Paged<CommentThread>,
);

/// Items are read one at a time at random, so how many the budget holds decides how often a
/// read is a hit: they are kept packed (`packed_view`).
impl Keep for Option<FeedbackView> {
    type Kept = PackedView;
    fn keep(&self) -> Option<PackedView> {
        PackedView::pack(self)
    }
    fn give(kept: &PackedView) -> Option<Self> {
        kept.unpack()
    }
    fn weight(kept: &PackedView) -> u64 {
        // The bytes, and the allocations around them (the key, the `Arc`, the cache's entry).
        128 + kept.len() as u64
    }
}

/// An adapter's answer as remembered (`AnswerStore`): the bytes, shared with every caller
/// given them, and how long its key was, for the weight.
#[derive(Clone)]
pub(crate) struct KeptAnswer {
    pub(crate) body: Arc<[u8]>,
    pub(crate) key_len: usize,
}

impl Keep for KeptAnswer {
    type Kept = KeptAnswer;
    fn keep(&self) -> Option<Self::Kept> {
        Some(self.clone())
    }
    fn give(kept: &Self::Kept) -> Option<Self> {
        Some(kept.clone())
    }
    fn weight(kept: &Self::Kept) -> u64 {
        // The bytes and the key, and the allocations around them.
        128 + (kept.body.len() + kept.key_len) as u64
    }
}

/// A list query as remembered: `trending_since` is "now" minus a window, different on every
/// call, and matters only to the trending sort, which is never remembered
/// (`FeedbackSort::moves_with_clock`).
pub(crate) fn list_key(team: TeamId, query: &FeedbackQuery) -> Option<(TeamId, FeedbackQuery)> {
    if query.sort.moves_with_clock() {
        return None;
    }
    let mut query = query.clone();
    query.trending_since = Timestamp::UNIX_EPOCH;
    Some((team, query))
}

#[derive(Clone)]
struct ByWeight;

impl Weighter<u64, Stamped> for ByWeight {
    fn weight(&self, _key: &u64, kept: &Stamped) -> u64 {
        kept.weight
    }
}

/// Roughly how many bytes an answer holds: its strings plus a fixed part per record.
pub(crate) trait Weight {
    fn weight(&self) -> u64;
}

fn bytes(s: &str) -> u64 {
    s.len() as u64
}

impl<T: Weight> Weight for Option<T> {
    fn weight(&self) -> u64 {
        self.as_ref().map_or(16, Weight::weight)
    }
}

impl<T: Weight> Weight for Paged<T> {
    fn weight(&self) -> u64 {
        64 + self.items.iter().map(Weight::weight).sum::<u64>()
    }
}

impl Weight for ApiKeyGrant {
    fn weight(&self) -> u64 {
        let key = &self.key;
        256 + bytes(&key.prefix) + bytes(&key.key_hash) + key.name.as_deref().map_or(0, bytes)
    }
}

impl Weight for Team {
    fn weight(&self) -> u64 {
        160 + bytes(&self.name)
            + bytes(&self.subdomain)
            + self.portal_sign_in_url.as_deref().map_or(0, bytes)
    }
}

impl Weight for BoardView {
    fn weight(&self) -> u64 {
        let b = &self.board;
        192 + bytes(&b.name)
            + bytes(&b.slug)
            + bytes(&b.description)
            + b.meta.color.as_deref().map_or(0, bytes)
    }
}

fn person(person: &Option<SubscriberRef>) -> u64 {
    person.as_ref().map_or(0, |p| {
        96 + bytes(&p.name)
            + p.email.as_ref().map_or(0, |e| bytes(e.as_str()))
            + p.avatar_url.as_deref().map_or(0, bytes)
    })
}

impl Weight for FeedbackView {
    fn weight(&self) -> u64 {
        let f = &self.feedback;
        512 + bytes(&f.title)
            + bytes(&f.text)
            + bytes(&f.url_id)
            + f.kind.as_deref().map_or(0, bytes)
            + meta(&f.meta)
            + self
                .board
                .as_ref()
                .map_or(0, |b| 64 + bytes(&b.name) + bytes(&b.slug))
            + person(&self.creator)
            + person(&self.last_modified_by)
            + self
                .tags
                .iter()
                .map(|t| 64 + bytes(&t.name) + bytes(&t.color))
                .sum::<u64>()
    }
}

/// A `meta` object: 64 bytes a key besides the key's text and its string value, one level
/// deep (a nested value counts a flat 64): a cheap stand-in for serialising it.
fn meta(meta: &sounding_domain::meta::Meta) -> u64 {
    meta.iter()
        .map(|(key, value)| 64 + bytes(key) + value.as_str().map_or(64, bytes))
        .sum()
}

impl Weight for TopicView {
    fn weight(&self) -> u64 {
        let t = &self.topic;
        512 + bytes(&t.title)
            + bytes(&t.description)
            + bytes(&t.text)
            + bytes(&t.url_id)
            + meta(&t.meta)
            + bytes(&self.stage.name)
    }
}

impl Weight for TopicCommentView {
    fn weight(&self) -> u64 {
        256 + bytes(&self.comment.text)
            + person(&self.author)
            + bytes(&self.topic.title)
            + bytes(&self.topic.url_id)
    }
}

impl Weight for CommentThread {
    fn weight(&self) -> u64 {
        self.root.weight() + self.replies.iter().map(Weight::weight).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use sounding_domain::{
        feedback::{FeedbackScope, FeedbackSort},
        page::PageRequest,
    };

    use super::*;

    fn query(sort: FeedbackSort, trending_since: i64) -> FeedbackQuery {
        FeedbackQuery {
            scope: FeedbackScope::Public,
            sort,
            statuses: Vec::new(),
            board_id: None,
            tag_id: None,
            search: None,
            trending_since: Timestamp::from_unix_seconds(trending_since).unwrap(),
            created: sounding_domain::feedback::CreatedRange::default(),
            page: PageRequest {
                limit: 20,
                offset: 0,
            },
        }
    }

    #[test]
    fn lists_are_remembered_whatever_the_clock_except_the_trending_sort() {
        let team = TeamId::new();
        for sort in [FeedbackSort::Newest, FeedbackSort::Top] {
            let earlier = list_key(team, &query(sort, 1_800_000_000));
            let later = list_key(team, &query(sort, 1_800_000_060));
            assert!(earlier.is_some());
            assert_eq!(earlier, later, "{sort:?}: one key a minute apart");
        }
        assert_eq!(
            list_key(team, &query(FeedbackSort::Trending, 1_800_000_000)),
            None
        );
    }

    /// A `Weight` of a fixed size, for the budget checks.
    #[derive(Debug, Clone, PartialEq)]
    struct Heavy(u64);

    impl Weight for Heavy {
        fn weight(&self) -> u64 {
            self.0
        }
    }

    kept_as_is!(Heavy);

    #[test]
    fn kinds_share_one_budget_and_never_answer_for_each_other() {
        let answers = Answers::new(1 << 20);
        let items: Memo<u32, Heavy> = Memo::of(&answers, Kind::Item);
        let lists: Memo<u32, Heavy> = Memo::of(&answers, Kind::List);
        items.put(1, 7, &Heavy(100));
        assert_eq!(items.get(&1, 7), Some(Heavy(100)));
        assert_eq!(lists.get(&1, 7), None, "the same key of another kind");

        // One kind alone may fill most of the budget (fixed shares gave items half).
        for key in 0..900 {
            items.put(key, 7, &Heavy(1024));
        }
        let kept = (0..900).filter(|key| items.get(key, 7).is_some()).count();
        assert!(kept > 700, "{kept} of 900 answers of 1 KiB kept in 1 MiB");
    }

    #[test]
    fn an_answer_is_given_only_at_the_version_it_was_read_at() {
        let memo: Memo<u32, Option<FeedbackView>> = Memo::new(1 << 20);
        memo.put(1, 7, &None);
        assert_eq!(memo.get(&1, 7), Some(None));
        assert_eq!(memo.get(&1, 8), None, "a commit since");
        assert_eq!(memo.get(&2, 7), None, "never read");
    }
}
