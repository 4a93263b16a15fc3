//! Domain values for the port-contract story: teams with their owner and key, boards,
//! subscribers, feedback with its votes and comments, events, list queries, and instants
//! with millisecond precision.

use serde_json::{json, Value};
use sounding_domain::{
    access::{Role, TeamUser},
    api_key::ApiKey,
    board::{Board, BoardMeta},
    event::{EventKind, NewEvent},
    feedback::{Feedback, FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus, Priority},
    feedback_comment::{CommentQuery, CommentSort, Direction, FeedbackComment},
    feedback_vote::FeedbackVote,
    ids::{BoardId, FeedbackCommentId, FeedbackId, FeedbackVoteId, SubscriberId, TeamId, UserId},
    meta::Meta,
    page::PageRequest,
    ports::Store,
    subscriber::{Identify, Subscriber},
    team::Team,
    timestamp::Timestamp,
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
        .insert_feedback(&item, &[])
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
        search: None,
        trending_since: t0(),
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
