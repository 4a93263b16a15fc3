//! `FeedbackStore` in memory: each item is kept with its votes, comments and follows, so
//! removing the item removes them too and its counts are the lengths of its lists.

use std::cmp::Ordering;

use async_trait::async_trait;
use sounding_domain::{
    edit::{self, Blocked, Edit, Edited, RemovalEvents},
    event::NewEvent,
    feedback::{
        self, BoardRef, Feedback, FeedbackQuery, FeedbackReach, FeedbackScope, FeedbackSort,
        FeedbackView,
    },
    feedback_comment::{CommentQuery, CommentSort, CommentView, Direction, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState},
    ids::{FeedbackCommentId, FeedbackId, SubscriberId, TagId, TeamId},
    page::{PageRequest, Paged},
    ports::{Conflict, FeedbackStore, StoreError, StoreResult},
    subscriber::{Subscriber, SubscriberRef},
    timestamp::Timestamp,
    DomainError, Entity,
};

use crate::{
    reactions::{Follows, Votes},
    MemoryStore, State,
};

/// A stored feedback item and what hangs off it.
pub(crate) struct FeedbackRow {
    pub(crate) feedback: Feedback,
    pub(crate) votes: Votes<FeedbackVote>,
    /// In the order they were written.
    pub(crate) comments: Vec<FeedbackComment>,
    pub(crate) follows: Follows,
    /// The team's tags it carries (see `tags.rs`).
    pub(crate) tags: Vec<TagId>,
}

impl FeedbackRow {
    fn new(feedback: Feedback) -> Self {
        Self {
            follows: Follows::of_creator(feedback.creator_id, feedback.created_at),
            feedback,
            votes: Votes::default(),
            comments: Vec::new(),
            tags: Vec::new(),
        }
    }

    pub(crate) fn vote_count(&self) -> i64 {
        self.votes.count()
    }

    /// Votes and comments made since `since`: the trending score.
    fn activity_since(&self, since: Timestamp) -> usize {
        self.votes.iter().filter(|v| v.created_at >= since).count()
            + self
                .comments
                .iter()
                .filter(|c| c.created_at >= since)
                .count()
    }
}

/// A count as the ports report it.
pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One page cut from every selected item, with their number.
pub(crate) fn page_of<T>(all: Vec<T>, page: PageRequest) -> Paged<T> {
    let total = count(all.len());
    let offset = usize::try_from(page.offset.max(0)).unwrap_or(usize::MAX);
    let limit = usize::try_from(page.limit.max(0)).unwrap_or(usize::MAX);
    Paged {
        items: all.into_iter().skip(offset).take(limit).collect(),
        total,
        page,
    }
}

/// Newest first: creation time, then id, both descending.
fn newest_first(a: &Feedback, b: &Feedback) -> Ordering {
    b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id))
}

impl State {
    pub(crate) fn row(&self, team: TeamId, id: FeedbackId) -> Option<&FeedbackRow> {
        self.feedback
            .get(&id)
            .filter(|r| r.feedback.team_id == team)
    }

    pub(crate) fn row_mut(&mut self, team: TeamId, id: FeedbackId) -> Option<&mut FeedbackRow> {
        self.feedback
            .get_mut(&id)
            .filter(|r| r.feedback.team_id == team)
    }

    /// The subscriber if it exists and belongs to `team`.
    pub(crate) fn team_subscriber(&self, team: TeamId, id: SubscriberId) -> Option<Subscriber> {
        self.subscribers
            .get(&id)
            .filter(|s| s.team_id == team)
            .cloned()
    }

    /// How `id` is shown beside what they wrote, if they are one of `team`'s subscribers.
    pub(crate) fn team_person(&self, team: TeamId, id: SubscriberId) -> Option<SubscriberRef> {
        self.team_subscriber(team, id)
            .as_ref()
            .map(SubscriberRef::from)
    }

    pub(crate) fn feedback_view(&self, row: &FeedbackRow) -> FeedbackView {
        let f = &row.feedback;
        let board = f
            .board_id
            .and_then(|id| self.boards.get(&id))
            .filter(|b| b.team_id == f.team_id)
            .map(|b| BoardRef {
                id: b.id,
                name: b.name.clone(),
                slug: b.slug.clone(),
                is_public: b.meta.is_public,
            });
        FeedbackView {
            feedback: f.clone(),
            board,
            creator: self.team_person(f.team_id, f.creator_id),
            last_modified_by: f
                .last_modified_by_id
                .and_then(|id| self.team_person(f.team_id, id)),
            vote_count: row.vote_count(),
            comment_count: count(row.comments.len()),
            tags: self.tag_refs(f.team_id, &row.tags),
        }
    }

    /// Where the team's comment `id` is: its item and its index among the item's comments.
    fn feedback_comment_at(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
    ) -> Option<(FeedbackId, usize)> {
        self.feedback
            .values()
            .filter(|r| r.feedback.team_id == team)
            .find_map(|r| {
                r.comments
                    .iter()
                    .position(|c| c.id == id)
                    .map(|i| (r.feedback.id, i))
            })
    }

    fn feedback_comment_view(&self, item: FeedbackId, i: usize) -> CommentView {
        let comment = self.feedback[&item].comments[i].clone();
        CommentView {
            author: self.team_person(comment.team_id, comment.subscriber_id),
            comment,
        }
    }

    pub(crate) fn url_id_taken(&self, team: TeamId, url_id: &str, except: FeedbackId) -> bool {
        self.feedback.values().any(|r| {
            r.feedback.team_id == team && r.feedback.url_id == url_id && r.feedback.id != except
        })
    }

    /// Who may read the item: whether it is published, and its board's `is_public` (a board
    /// that is not the team's counts as a private one).
    fn reach_of(&self, f: &Feedback) -> FeedbackReach {
        FeedbackReach {
            published: f.published_at.is_some(),
            board_is_public: f.board_id.map(|id| {
                self.boards
                    .get(&id)
                    .is_some_and(|b| b.team_id == f.team_id && b.meta.is_public)
            }),
        }
    }

    /// Whether the query selects the item.
    fn selects(&self, row: &FeedbackRow, query: &FeedbackQuery) -> bool {
        let f = &row.feedback;
        let in_scope = match query.scope {
            FeedbackScope::Public => self.reach_of(f).is_listed_publicly(f.archived_at.is_some()),
            FeedbackScope::Team { include_archived } => include_archived || f.archived_at.is_none(),
        };
        in_scope
            && (query.statuses.is_empty() || query.statuses.contains(&f.status))
            && query.board_id.is_none_or(|id| f.board_id == Some(id))
            && query.tag_id.is_none_or(|id| row.tags.contains(&id))
            && query.created.contains(f.created_at)
            && query
                .search
                .as_deref()
                .is_none_or(|term| feedback::search_text(&f.title, &f.text).contains(term))
    }
}

#[async_trait]
impl FeedbackStore for MemoryStore {
    async fn insert_feedback(
        &self,
        feedback: &Feedback,
        tags: &[TagId],
        events: &[NewEvent],
    ) -> StoreResult<()> {
        let mut s = self.state();
        if s.url_id_taken(feedback.team_id, &feedback.url_id, feedback.id) {
            return Err(StoreError::Conflict(Conflict::FeedbackUrlId));
        }
        let team = feedback.team_id;
        if !tags
            .iter()
            .all(|tag| s.tags.get(tag).is_some_and(|t| t.team_id == team))
        {
            return Err(StoreError::Conflict(Conflict::FeedbackTag));
        }
        let mut row = FeedbackRow::new(feedback.clone());
        row.tags = tags.to_vec();
        row.tags.dedup();
        s.feedback.insert(feedback.id, row);
        s.append(events);
        Ok(())
    }

    async fn feedback(&self, team: TeamId, id: FeedbackId) -> StoreResult<Option<FeedbackView>> {
        let s = self.state();
        Ok(s.row(team, id).map(|row| s.feedback_view(row)))
    }

    async fn feedback_reach(
        &self,
        team: TeamId,
        id: FeedbackId,
    ) -> StoreResult<Option<FeedbackReach>> {
        let s = self.state();
        Ok(s.row(team, id).map(|row| s.reach_of(&row.feedback)))
    }

    async fn feedback_by_url_id(
        &self,
        team: TeamId,
        url_id: &str,
    ) -> StoreResult<Option<FeedbackView>> {
        let s = self.state();
        Ok(s.feedback
            .values()
            .find(|r| r.feedback.team_id == team && r.feedback.url_id == url_id)
            .map(|row| s.feedback_view(row)))
    }

    async fn edit_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        edit: Edit<FeedbackView>,
    ) -> StoreResult<Edited<FeedbackView>> {
        let mut s = self.state();
        let found = s.row(team, id).map(|row| s.feedback_view(row));
        edit::run(found, edit, |before, after, events| {
            let tags: Vec<TagId> = after.tags.iter().map(|t| t.id).collect();
            if before.tags != after.tags
                && !tags
                    .iter()
                    .all(|tag| s.tags.get(tag).is_some_and(|t| t.team_id == team))
            {
                return Err(Blocked::Refused(DomainError::NotFound(Entity::Tag)));
            }
            if s.url_id_taken(team, &after.feedback.url_id, id) {
                return Err(Blocked::Failed(StoreError::Conflict(
                    Conflict::FeedbackUrlId,
                )));
            }
            if let Some(row) = s.row_mut(team, id) {
                row.feedback = after.feedback.clone();
                row.tags = tags;
            }
            s.append(&events);
            Ok(())
        })
    }

    async fn delete_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let mut s = self.state();
        if s.row(team, id).is_none() {
            return Ok(false);
        }
        s.feedback.remove(&id);
        s.append(events);
        Ok(true)
    }

    async fn list_feedback(
        &self,
        team: TeamId,
        query: &FeedbackQuery,
    ) -> StoreResult<Paged<FeedbackView>> {
        let s = self.state();
        let mut rows: Vec<&FeedbackRow> = s
            .feedback
            .values()
            .filter(|r| r.feedback.team_id == team && s.selects(r, query))
            .collect();
        match query.sort {
            FeedbackSort::Newest => rows.sort_by(|a, b| newest_first(&a.feedback, &b.feedback)),
            FeedbackSort::Top => rows.sort_by(|a, b| {
                b.vote_count()
                    .cmp(&a.vote_count())
                    .then_with(|| newest_first(&a.feedback, &b.feedback))
            }),
            FeedbackSort::Trending => {
                let since = query.trending_since;
                rows.sort_by_cached_key(|r| {
                    (
                        std::cmp::Reverse(r.activity_since(since)),
                        std::cmp::Reverse(r.feedback.created_at),
                        std::cmp::Reverse(r.feedback.id),
                    )
                })
            }
        }
        let views = rows.into_iter().map(|r| s.feedback_view(r)).collect();
        Ok(page_of(views, query.page))
    }

    async fn cast_vote(
        &self,
        team: TeamId,
        vote: &FeedbackVote,
        access: VoteAccess,
        events: &[NewEvent],
    ) -> StoreResult<VoteOutcome> {
        let mut s = self.state();
        let Some(reach) = s
            .row(team, vote.feedback_id)
            .map(|row| s.reach_of(&row.feedback))
        else {
            return Ok(VoteOutcome::NotFound);
        };
        if access == VoteAccess::Public && !reach.is_publicly_readable() {
            return Ok(VoteOutcome::NotPublic(reach));
        }
        let Some(row) = s.row_mut(team, vote.feedback_id) else {
            return Ok(VoteOutcome::NotFound);
        };
        let Some(total_votes) = row.votes.cast(vote) else {
            return Ok(VoteOutcome::AlreadyVoted);
        };
        s.append(events);
        Ok(VoteOutcome::Cast {
            vote: vote.clone(),
            total_votes,
        })
    }

    async fn retract_vote(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>> {
        let mut s = self.state();
        Ok(s.row_mut(team, feedback)
            .map(|row| row.votes.retract(subscriber)))
    }

    async fn vote_state(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<VoteState>> {
        let s = self.state();
        Ok(s.row(team, feedback).map(|row| VoteState {
            count: row.vote_count(),
            vote: subscriber.and_then(|id| row.votes.of(id).cloned()),
        }))
    }

    async fn voted_among(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        items: &[FeedbackId],
    ) -> StoreResult<Vec<FeedbackId>> {
        let s = self.state();
        Ok(items
            .iter()
            .copied()
            .filter(|id| {
                s.row(team, *id)
                    .is_some_and(|row| row.votes.of(subscriber).is_some())
            })
            .collect())
    }

    async fn insert_comment(
        &self,
        comment: &FeedbackComment,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(row) = s.row_mut(comment.team_id, comment.feedback_id) else {
            return Ok(false);
        };
        row.comments.push(comment.clone());
        row.follows
            .follow(comment.subscriber_id, comment.created_at);
        s.append(events);
        Ok(true)
    }

    async fn comments(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        query: &CommentQuery,
    ) -> StoreResult<Paged<CommentView>> {
        let s = self.state();
        let mut comments: Vec<&FeedbackComment> = s
            .row(team, feedback)
            .map(|row| {
                row.comments
                    .iter()
                    .filter(|c| query.include_private || !c.is_private)
                    .collect()
            })
            .unwrap_or_default();
        let key = |c: &FeedbackComment| match query.sort {
            CommentSort::CreatedAt => c.created_at,
            CommentSort::UpdatedAt => c.updated_at,
        };
        comments.sort_by(|a, b| {
            let ascending = key(a).cmp(&key(b)).then(a.id.cmp(&b.id));
            match query.direction {
                Direction::Asc => ascending,
                Direction::Desc => ascending.reverse(),
            }
        });
        let views = comments
            .into_iter()
            .map(|c| CommentView {
                comment: c.clone(),
                author: s.team_person(team, c.subscriber_id),
            })
            .collect();
        Ok(page_of(views, query.page))
    }

    async fn edit_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        edit: Edit<CommentView>,
    ) -> StoreResult<Edited<CommentView>> {
        let mut s = self.state();
        let at = s.feedback_comment_at(team, id);
        let found = at.map(|(item, i)| s.feedback_comment_view(item, i));
        edit::run(found, edit, |_, after, events| {
            if let Some((item, i)) = at {
                if let Some(row) = s.feedback.get_mut(&item) {
                    row.comments[i] = after.comment.clone();
                }
            }
            s.append(&events);
            Ok::<_, Blocked<StoreError>>(())
        })
    }

    async fn delete_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        events: RemovalEvents<CommentView>,
    ) -> StoreResult<Option<CommentView>> {
        let mut s = self.state();
        let Some((item, i)) = s.feedback_comment_at(team, id) else {
            return Ok(None);
        };
        let view = s.feedback_comment_view(item, i);
        let events = events(&view);
        if let Some(row) = s.feedback.get_mut(&item) {
            row.comments.remove(i);
        }
        s.append(&events);
        Ok(Some(view))
    }

    async fn set_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
        follow: bool,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(row) = s.row_mut(team, feedback) else {
            return Ok(false);
        };
        row.follows.set(subscriber, follow, at);
        Ok(true)
    }

    async fn followers(
        &self,
        team: TeamId,
        feedback: FeedbackId,
    ) -> StoreResult<Vec<SubscriberId>> {
        let s = self.state();
        Ok(s.row(team, feedback)
            .map(|row| row.follows.by_time())
            .unwrap_or_default())
    }

    async fn is_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<bool> {
        let s = self.state();
        Ok(s.row(team, feedback)
            .is_some_and(|row| row.follows.contains(subscriber)))
    }
}

impl FeedbackRow {
    /// The item's followers, in follow order (for notifications).
    pub(crate) fn follower_ids(&self) -> Vec<SubscriberId> {
        self.follows.ids()
    }
}
