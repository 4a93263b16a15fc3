//! Domain values for the storage tests (the port-contract suite and `sounding-store-diesel`'s
//! own): teams with their owner and key, boards,
//! subscribers, feedback with its votes and comments, roadmaps with their stages, topics with
//! their votes and threaded comments, events, list queries, and instants with millisecond
//! precision.

use serde_json::{json, Value};
use sounding_domain::{
    access::{Role, TeamUser},
    api_key::ApiKey,
    board::BoardView,
    board::{Board, BoardMeta},
    event::StoredEvent,
    event::{EventKind, NewEvent},
    feedback::{BoardRef, FeedbackView},
    feedback::{Feedback, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus, Priority},
    feedback_comment::{CommentQuery, CommentSort, Direction, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
    ids::{
        BoardId, FeedbackCommentId, FeedbackId, FeedbackVoteId, RoadmapId, StageId, SubscriberId,
        TeamId, TopicCommentId, TopicId, TopicVoteId, UserId, WebhookId,
    },
    meta::Meta,
    page::PageRequest,
    page::Paged,
    ports::Store,
    ports::{Conflict, StoreError},
    roadmap::Roadmap,
    stage::{Stage, StageMeta},
    subscriber::{Identify, Subscriber, SubscriberSource},
    team::Team,
    timestamp::Timestamp,
    topic::{Topic, TopicQuery, TopicSort, TopicVisit},
    topic_comment::{CommentSource, ThreadQuery, ThreadScope, TopicComment},
    topic_vote::TopicVote,
    webhook::{new_secret, LeaseRequest, WebhookSubscription},
};

/// An instant from RFC 3339.
pub fn at(rfc3339: &str) -> Timestamp {
    Timestamp::parse_rfc3339(rfc3339).unwrap_or_else(|| panic!("bad timestamp {rfc3339}"))
}

pub fn t0() -> Timestamp {
    at("2026-03-04T05:06:07.089Z")
}

pub struct TeamFixture {
    pub team: Team,
    pub owner: TeamUser,
    pub key: ApiKey,
}

/// A team, its owner and the owner's key, not yet stored.
pub fn team_fixture(subdomain: &str, now: Timestamp) -> TeamFixture {
    let team = Team::new(&format!("Team {subdomain}"), subdomain, now).expect("valid team");
    let owner = TeamUser {
        id: UserId::new(),
        team_id: team.id,
        email: format!("owner@{subdomain}.example"),
        name: "Owner".into(),
        role: Role::Owner,
        created_at: now,
    };
    let (key, _secret) = ApiKey::new(team.id, owner.id, Role::Owner, false, None, now);
    TeamFixture { team, owner, key }
}

/// A stored team (with owner and key).
pub async fn stored_team(store: &dyn Store, subdomain: &str) -> TeamFixture {
    let fixture = team_fixture(subdomain, t0());
    store
        .create_team(&fixture.team, &fixture.owner, &fixture.key)
        .await
        .expect("create team");
    fixture
}

pub fn identify(email: &str, name: Option<&str>, meta: Option<Value>) -> Identify {
    Identify::new(Some(email), name, meta.as_ref(), None, None).expect("valid identify")
}

/// A public board of `team`, not yet stored.
pub fn board(team: TeamId, slug: &str, order: i64, created_at: Timestamp) -> Board {
    Board {
        id: BoardId::new(),
        team_id: team,
        name: format!("Board {slug}"),
        slug: slug.into(),
        description: format!("All about {slug}"),
        order,
        meta: BoardMeta::default(),
        created_at,
        updated_at: created_at,
    }
}

/// A stored public board of `team` (created at `t0`).
pub async fn stored_board(store: &dyn Store, team: TeamId, slug: &str, order: i64) -> Board {
    let b = board(team, slug, order, t0());
    store.insert_board(&b).await.expect("insert board");
    b
}

/// A stored subscriber of `team` with this e-mail (identified at `t0`).
pub async fn subscriber(store: &dyn Store, team: TeamId, email: &str) -> Subscriber {
    let input = Identify::new(Some(email), None, None, None, None).expect("valid identify");
    store
        .identify(team, &input, t0())
        .await
        .expect("identify")
        .0
}

/// A published, unarchived feedback item of `team` titled after its url id, not yet stored.
pub fn feedback(
    team: TeamId,
    board: Option<BoardId>,
    creator: SubscriberId,
    url_id: &str,
    created_at: Timestamp,
) -> Feedback {
    Feedback {
        id: FeedbackId::new(),
        team_id: team,
        board_id: board,
        url_id: url_id.into(),
        title: format!("Item {url_id}"),
        text: String::new(),
        status: FeedbackStatus::InReview,
        priority: Priority::Medium,
        kind: None,
        creator_id: creator,
        meta: Meta::new(),
        published_at: Some(created_at),
        archived_at: None,
        created_at,
        updated_at: created_at,
        last_modified_by_id: None,
    }
}

/// Stores `item` (without events) and hands it back.
pub async fn stored_feedback(store: &dyn Store, item: Feedback) -> Feedback {
    store
        .insert_feedback(&item, &[], &[])
        .await
        .expect("insert feedback");
    item
}

pub fn vote(item: &Feedback, subscriber: SubscriberId, created_at: Timestamp) -> FeedbackVote {
    FeedbackVote {
        id: FeedbackVoteId::new(),
        feedback_id: item.id,
        subscriber_id: subscriber,
        created_at,
    }
}

/// Casts `vote` with checked access, appending `events` with it; the outcome.
pub async fn cast(
    store: &dyn Store,
    team: TeamId,
    vote: &FeedbackVote,
    events: &[NewEvent],
) -> VoteOutcome {
    store
        .cast_vote(team, vote, VoteAccess::Checked, events)
        .await
        .expect("cast vote")
}

/// What casting `vote` answers when it counts: the vote, and the item's `total` after it.
pub fn vote_counted(vote: &FeedbackVote, total: i64) -> VoteOutcome {
    VoteOutcome::Cast {
        vote: vote.clone(),
        total_votes: total,
    }
}

pub fn comment(
    item: &Feedback,
    author: SubscriberId,
    text: &str,
    is_private: bool,
    created_at: Timestamp,
) -> FeedbackComment {
    FeedbackComment {
        id: FeedbackCommentId::new(),
        team_id: item.team_id,
        feedback_id: item.id,
        subscriber_id: author,
        text: text.into(),
        is_private,
        created_at,
        updated_at: created_at,
    }
}

/// An event of `team` whose payload names `n`, so every event is told apart.
pub fn event(team: TeamId, kind: EventKind, occurred_at: Timestamp, n: i64) -> NewEvent {
    NewEvent::new(team, kind, occurred_at, &[], json!({ "n": n }))
}

/// Every row (the largest page) from the start.
pub fn everything() -> PageRequest {
    PageRequest {
        limit: 100,
        offset: 0,
    }
}

/// A list of everything in `scope`, in `sort` order, unfiltered, the trending window
/// starting at `t0`.
pub fn list_query(scope: FeedbackScope, sort: FeedbackSort) -> FeedbackQuery {
    FeedbackQuery {
        scope,
        sort,
        statuses: Vec::new(),
        board_id: None,
        tag_id: None,
        search: None,
        trending_since: t0(),
        created: sounding_domain::feedback::CreatedRange::default(),
        page: everything(),
    }
}

/// All of an item's comments (private ones only when asked) in this order.
pub fn comment_query(
    include_private: bool,
    sort: CommentSort,
    direction: Direction,
) -> CommentQuery {
    CommentQuery {
        include_private,
        sort,
        direction,
        page: everything(),
    }
}

/// A roadmap of `team`, not yet stored.
pub fn roadmap(team: TeamId, name: &str, created_at: Timestamp) -> Roadmap {
    Roadmap {
        id: RoadmapId::new(),
        team_id: team,
        name: name.into(),
        description: format!("Where {name} is going"),
        is_private: false,
        created_at,
        updated_at: created_at,
    }
}

/// A stored roadmap of `team`.
pub async fn stored_roadmap(store: &dyn Store, team: TeamId, name: &str) -> Roadmap {
    let r = roadmap(team, name, t0());
    store.insert_roadmap(&r, &[]).await.expect("insert roadmap");
    r
}

/// A public stage of `roadmap`, not yet stored (the store gives it its order).
pub fn stage(roadmap: &Roadmap, name: &str, created_at: Timestamp) -> Stage {
    Stage {
        id: StageId::new(),
        team_id: roadmap.team_id,
        roadmap_id: roadmap.id,
        name: name.into(),
        order: 0,
        meta: StageMeta::default(),
        created_at,
        updated_at: created_at,
    }
}

/// A public stage stored last in `roadmap`, as stored.
pub async fn stored_stage(store: &dyn Store, roadmap: &Roadmap, name: &str) -> Stage {
    store
        .insert_stage(&stage(roadmap, name, t0()), None)
        .await
        .expect("insert stage")
        .expect("the roadmap exists")
}

/// A published topic on `stage` titled after its url id, not yet stored.
pub fn topic(stage: &Stage, creator: SubscriberId, url_id: &str, created_at: Timestamp) -> Topic {
    Topic {
        id: TopicId::new(),
        team_id: stage.team_id,
        roadmap_id: stage.roadmap_id,
        stage_id: stage.id,
        url_id: url_id.into(),
        title: format!("Topic {url_id}"),
        description: format!("About {url_id}"),
        text: String::new(),
        subscriber_id: creator,
        meta: Meta::new(),
        visits: 0,
        published_at: Some(created_at),
        created_at,
        updated_at: created_at,
    }
}

/// Stores `topic` (no new creator, no events) and hands it back.
pub async fn stored_topic(store: &dyn Store, topic: Topic) -> Topic {
    store
        .insert_topic(&topic, None, &[])
        .await
        .expect("insert topic");
    topic
}

/// An anonymous topic creator of `team` (no e-mail), not yet stored.
pub fn anonymous(team: TeamId, name: &str, now: Timestamp) -> Subscriber {
    Subscriber {
        id: SubscriberId::new(),
        team_id: team,
        name: name.into(),
        email: None,
        source: SubscriberSource::Widget,
        meta: Meta::new(),
        attributes: Default::default(),
        avatar_url: None,
        token_version: 0,
        created_at: now,
        last_updated: now,
    }
}

pub fn topic_vote(topic: &Topic, subscriber: SubscriberId, created_at: Timestamp) -> TopicVote {
    TopicVote {
        id: TopicVoteId::new(),
        topic_id: topic.id,
        creator_id: subscriber,
        created_at,
    }
}

/// A comment on `topic`: top-level without `parent`, else a reply in the parent's thread.
pub fn topic_comment(
    topic: &Topic,
    author: SubscriberId,
    parent: Option<&TopicComment>,
    text: &str,
    created_at: Timestamp,
) -> TopicComment {
    let id = TopicCommentId::new();
    TopicComment {
        id,
        team_id: topic.team_id,
        topic_id: topic.id,
        creator_id: author,
        parent_id: parent.map(|p| p.id),
        root_id: parent.map_or(id, |p| p.root_id),
        text: text.into(),
        source: CommentSource::Api,
        created_at,
        updated_at: created_at,
        deleted_at: None,
    }
}

/// All of the team's topics (published or not) in this order.
pub fn topic_query(sort: TopicSort, direction: Direction) -> TopicQuery {
    TopicQuery {
        roadmap_id: None,
        stage_id: None,
        published_only: false,
        sort,
        direction,
        page: everything(),
    }
}

/// The threads of `topic` (of every topic of the team when `None`) in `scope`, oldest first.
pub fn thread_query(topic: Option<TopicId>, scope: ThreadScope) -> ThreadQuery {
    ThreadQuery {
        topic,
        scope,
        sort: CommentSort::CreatedAt,
        direction: Direction::Asc,
        page: everything(),
    }
}

/// A subscription of `team` to `kind`, not yet stored.
pub fn webhook(
    team: TeamId,
    kind: EventKind,
    url: &str,
    created_at: Timestamp,
) -> WebhookSubscription {
    WebhookSubscription {
        id: WebhookId::new(),
        team_id: team,
        target_url: url.into(),
        event: kind,
        secret: new_secret(),
        created_at,
    }
}

/// `viewer`'s view of `topic` at `at`, counted once per `window_seconds`.
pub fn topic_visit(topic: TopicId, viewer: &str, at: Timestamp, window_seconds: i64) -> TopicVisit {
    TopicVisit {
        topic,
        viewer: viewer.to_owned(),
        at,
        window_seconds,
    }
}

/// `owner` asking at `now` for up to `limit` due deliveries, held for `seconds`.
pub fn lease_request(owner: &str, now: Timestamp, seconds: i64, limit: i64) -> LeaseRequest {
    LeaseRequest {
        owner: owner.to_owned(),
        now,
        seconds,
        limit,
    }
}

// ---------------------------------------------------------------------------------------------
// What the checks compare with: errors, stored events, views and pages.

pub fn conflict(rule: Conflict) -> StoreError {
    StoreError::Conflict(rule)
}

pub fn view(board: &Board) -> BoardView {
    BoardView {
        board: board.clone(),
        feedback_count: 0,
    }
}

/// An event as the outbox keeps it.
pub fn stored(event: &NewEvent) -> StoredEvent {
    StoredEvent {
        id: event.id,
        team_id: event.team_id,
        kind: event.kind.as_str().to_owned(),
        occurred_at: event.occurred_at,
        payload: event.payload.to_value(),
    }
}

pub fn board_ref(board: &Board) -> BoardRef {
    BoardRef {
        id: board.id,
        name: board.name.clone(),
        slug: board.slug.clone(),
        is_public: board.meta.is_public,
    }
}

/// The stored view of an item that must exist.
pub async fn read(store: &dyn Store, item: &Feedback) -> FeedbackView {
    store
        .feedback(item.team_id, item.id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("feedback {} is stored", item.url_id))
}

/// The url ids of a list's page, in order, and its total.
pub async fn listed(store: &dyn Store, team: TeamId, query: &FeedbackQuery) -> (Vec<String>, i64) {
    let page = store.list_feedback(team, query).await.unwrap();
    assert_eq!(page.page, query.page, "the page answers the request");
    let ids = page
        .items
        .iter()
        .map(|v| v.feedback.url_id.clone())
        .collect();
    (ids, page.total)
}

pub fn url_ids(items: &[&Feedback]) -> Vec<String> {
    items.iter().map(|f| f.url_id.clone()).collect()
}

pub fn empty_page<T>(page: PageRequest) -> Paged<T> {
    Paged {
        items: Vec::new(),
        total: 0,
        page,
    }
}
