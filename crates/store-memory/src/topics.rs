//! `TopicStore` in memory: each topic is kept with its votes, comments, follows and visit
//! records, so removing the topic removes them too and its counts are the lengths of its lists.

use std::{cmp::Ordering, collections::HashMap};

use async_trait::async_trait;
use sounding_domain::{
    edit::{self, Blocked, Edit, Edited, RemovalEvents},
    event::NewEvent,
    feedback_comment::{CommentSort, Direction},
    ids::{SubscriberId, TeamId, TopicCommentId, TopicId},
    page::Paged,
    ports::{Conflict, StoreError, StoreResult, TopicStore},
    subscriber::Subscriber,
    timestamp::Timestamp,
    topic::{StageRef, Topic, TopicQuery, TopicSort, TopicView, TopicVisit},
    topic_comment::{
        CommentThread, Removal, ThreadQuery, ThreadScope, TopicComment, TopicCommentView, TopicRef,
    },
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
};

use crate::{
    feedback::{count, page_of},
    reactions::{Follows, Votes},
    MemoryStore, State,
};

/// A stored topic and what hangs off it.
pub(crate) struct TopicRow {
    pub(crate) topic: Topic,
    votes: Votes<TopicVote>,
    /// In the order they were written.
    comments: Vec<TopicComment>,
    follows: Follows,
    /// When each viewer's visit last counted.
    visits: HashMap<String, Timestamp>,
}

impl TopicRow {
    fn new(topic: Topic) -> Self {
        Self {
            follows: Follows::of_creator(topic.subscriber_id, topic.created_at),
            topic: Topic { visits: 0, ..topic },
            votes: Votes::default(),
            comments: Vec::new(),
            visits: HashMap::new(),
        }
    }

    fn vote_count(&self) -> i64 {
        self.votes.count()
    }
}

/// `ascending` as is, or reversed for a descending list.
fn directed(ascending: Ordering, direction: Direction) -> Ordering {
    match direction {
        Direction::Asc => ascending,
        Direction::Desc => ascending.reverse(),
    }
}

/// The order of topics under `sort`, ascending, ties by id.
fn topic_order(a: &TopicRow, b: &TopicRow, sort: TopicSort) -> Ordering {
    let (x, y) = (&a.topic, &b.topic);
    let by_key = match sort {
        TopicSort::CreatedAt => x.created_at.cmp(&y.created_at),
        TopicSort::UpdatedAt => x.updated_at.cmp(&y.updated_at),
        // Bytewise on the lowercased title, as the databases compare their `title_key`.
        TopicSort::Title => x
            .title
            .to_lowercase()
            .as_bytes()
            .cmp(y.title.to_lowercase().as_bytes()),
        TopicSort::VoteCount => a.vote_count().cmp(&b.vote_count()),
    };
    by_key.then(x.id.cmp(&y.id))
}

impl State {
    fn topic_row(&self, team: TeamId, id: TopicId) -> Option<&TopicRow> {
        self.topics.get(&id).filter(|r| r.topic.team_id == team)
    }

    fn topic_row_mut(&mut self, team: TeamId, id: TopicId) -> Option<&mut TopicRow> {
        self.topics.get_mut(&id).filter(|r| r.topic.team_id == team)
    }

    fn topic_url_id_taken(&self, team: TeamId, url_id: &str, except: TopicId) -> bool {
        self.topics
            .values()
            .any(|r| r.topic.team_id == team && r.topic.url_id == url_id && r.topic.id != except)
    }

    /// Whether the topic's stage and roadmap exist (the databases' foreign keys).
    fn topic_refs_exist(&self, topic: &Topic) -> bool {
        self.stages.contains_key(&topic.stage_id) && self.roadmaps.contains_key(&topic.roadmap_id)
    }

    /// The topic as read; `None` only if its stage is gone, which the ports never allow.
    fn topic_view(&self, row: &TopicRow) -> Option<TopicView> {
        let stage = self.stages.get(&row.topic.stage_id)?;
        Some(TopicView {
            topic: row.topic.clone(),
            stage: StageRef {
                id: stage.id,
                name: stage.name.clone(),
                order: stage.order,
                is_private: stage.meta.is_private,
            },
            vote_count: row.vote_count(),
            comment_count: count(row.comments.iter().filter(|c| !c.is_deleted()).count()),
        })
    }

    fn in_thread_scope(&self, row: &TopicRow, scope: ThreadScope) -> bool {
        // A stage that is gone counts as a private one (the databases' inner join).
        let stage_is_private = self
            .stages
            .get(&row.topic.stage_id)
            .is_none_or(|st| st.meta.is_private);
        scope.includes(&row.topic, stage_is_private)
    }

    /// Where the team's comment `id` is: its topic and its index among the topic's comments.
    fn topic_comment_at(&self, team: TeamId, id: TopicCommentId) -> Option<(TopicId, usize)> {
        self.topics
            .values()
            .filter(|r| r.topic.team_id == team)
            .find_map(|r| {
                r.comments
                    .iter()
                    .position(|c| c.id == id)
                    .map(|i| (r.topic.id, i))
            })
    }

    fn comment_view(&self, row: &TopicRow, comment: &TopicComment) -> TopicCommentView {
        TopicCommentView {
            comment: comment.clone(),
            author: self.team_person(comment.team_id, comment.creator_id),
            topic: TopicRef {
                id: row.topic.id,
                title: row.topic.title.clone(),
                url_id: row.topic.url_id.clone(),
            },
        }
    }
}

#[async_trait]
impl TopicStore for MemoryStore {
    async fn insert_topic(
        &self,
        topic: &Topic,
        new_creator: Option<Subscriber>,
        events: &[NewEvent],
    ) -> StoreResult<()> {
        let mut s = self.state();
        if s.topic_url_id_taken(topic.team_id, &topic.url_id, topic.id) {
            return Err(StoreError::Conflict(Conflict::TopicUrlId));
        }
        if !s.topic_refs_exist(topic) {
            return Err(StoreError::Failure(
                format!("topic {} names a missing stage or roadmap", topic.id).into(),
            ));
        }
        if let Some(creator) = new_creator {
            s.subscribers.insert(creator.id, creator);
        }
        s.topics.insert(topic.id, TopicRow::new(topic.clone()));
        s.append(events);
        Ok(())
    }

    async fn topic(&self, team: TeamId, id: TopicId) -> StoreResult<Option<TopicView>> {
        let s = self.state();
        Ok(s.topic_row(team, id).and_then(|row| s.topic_view(row)))
    }

    async fn topic_by_url_id(&self, team: TeamId, url_id: &str) -> StoreResult<Option<TopicView>> {
        let s = self.state();
        Ok(s.topics
            .values()
            .find(|r| r.topic.team_id == team && r.topic.url_id == url_id)
            .and_then(|row| s.topic_view(row)))
    }

    async fn edit_topic(
        &self,
        team: TeamId,
        id: TopicId,
        edit: Edit<TopicView>,
    ) -> StoreResult<Edited<TopicView>> {
        let mut s = self.state();
        let found = s.topic_row(team, id).and_then(|row| s.topic_view(row));
        edit::run(found, edit, |_, after, events| {
            let topic = &after.topic;
            if s.topic_url_id_taken(team, &topic.url_id, id) {
                return Err(Blocked::Failed(StoreError::Conflict(Conflict::TopicUrlId)));
            }
            if !s.topic_refs_exist(topic) {
                return Err(Blocked::Failed(StoreError::Failure(
                    format!("topic {id} names a missing stage or roadmap").into(),
                )));
            }
            if let Some(row) = s.topic_row_mut(team, id) {
                row.topic = Topic {
                    visits: row.topic.visits,
                    ..topic.clone()
                };
            }
            s.append(&events);
            Ok(())
        })
    }

    async fn delete_topic(
        &self,
        team: TeamId,
        id: TopicId,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let mut s = self.state();
        if s.topic_row(team, id).is_none() {
            return Ok(false);
        }
        s.topics.remove(&id);
        s.append(events);
        Ok(true)
    }

    async fn list_topics(&self, team: TeamId, query: &TopicQuery) -> StoreResult<Paged<TopicView>> {
        let s = self.state();
        let mut rows: Vec<&TopicRow> = s
            .topics
            .values()
            .filter(|r| {
                let t = &r.topic;
                t.team_id == team
                    && query.roadmap_id.is_none_or(|id| t.roadmap_id == id)
                    && query.stage_id.is_none_or(|id| t.stage_id == id)
                    && (!query.published_only || t.published_at.is_some())
            })
            .collect();
        rows.sort_by(|a, b| directed(topic_order(a, b, query.sort), query.direction));
        let views = rows.into_iter().filter_map(|r| s.topic_view(r)).collect();
        Ok(page_of(views, query.page))
    }

    async fn record_topic_visit(
        &self,
        team: TeamId,
        visit: &TopicVisit,
    ) -> StoreResult<Option<i64>> {
        let mut s = self.state();
        let Some(row) = s.topic_row_mut(team, visit.topic) else {
            return Ok(None);
        };
        if visit.counts_after(row.visits.get(&visit.viewer).copied()) {
            row.visits.insert(visit.viewer.clone(), visit.at);
            row.topic.visits += 1;
        }
        Ok(Some(row.topic.visits))
    }

    async fn cast_topic_vote(
        &self,
        team: TeamId,
        vote: &TopicVote,
        events: &[NewEvent],
    ) -> StoreResult<TopicVoteOutcome> {
        let mut s = self.state();
        let Some(row) = s.topic_row_mut(team, vote.topic_id) else {
            return Ok(TopicVoteOutcome::NotFound);
        };
        let Some(vote_count) = row.votes.cast(vote) else {
            return Ok(TopicVoteOutcome::AlreadyVoted);
        };
        s.append(events);
        Ok(TopicVoteOutcome::Cast {
            vote: vote.clone(),
            vote_count,
        })
    }

    async fn retract_topic_vote(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>> {
        let mut s = self.state();
        Ok(s.topic_row_mut(team, topic)
            .map(|row| row.votes.retract(subscriber)))
    }

    async fn topic_vote_state(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<TopicVoteState>> {
        let s = self.state();
        Ok(s.topic_row(team, topic).map(|row| TopicVoteState {
            count: row.vote_count(),
            voted: subscriber.is_some_and(|id| row.votes.of(id).is_some()),
        }))
    }

    async fn insert_topic_comment(
        &self,
        comment: &TopicComment,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(row) = s.topic_row_mut(comment.team_id, comment.topic_id) else {
            return Ok(false);
        };
        // A reply needs its parent still there, and not deleted.
        if let Some(parent) = comment.parent_id {
            if !row
                .comments
                .iter()
                .any(|c| c.id == parent && !c.is_deleted())
            {
                return Ok(false);
            }
        }
        row.comments.push(comment.clone());
        row.follows.follow(comment.creator_id, comment.created_at);
        s.append(events);
        Ok(true)
    }

    async fn topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicComment>> {
        let s = self.state();
        Ok(s.topics
            .values()
            .filter(|r| r.topic.team_id == team)
            .flat_map(|r| r.comments.iter())
            .find(|c| c.id == id)
            .cloned())
    }

    async fn topic_comment_view(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicCommentView>> {
        let s = self.state();
        Ok(s.topic_comment_at(team, id)
            .map(|(topic, i)| s.comment_view(&s.topics[&topic], &s.topics[&topic].comments[i])))
    }

    async fn edit_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        edit: Edit<TopicCommentView>,
    ) -> StoreResult<Edited<TopicCommentView>> {
        let mut s = self.state();
        let at = s.topic_comment_at(team, id);
        let found =
            at.map(|(topic, i)| s.comment_view(&s.topics[&topic], &s.topics[&topic].comments[i]));
        edit::run(found, edit, |_, after, events| {
            if let Some((topic, i)) = at {
                if let Some(row) = s.topics.get_mut(&topic) {
                    row.comments[i] = after.comment.clone();
                }
            }
            s.append(&events);
            Ok::<_, Blocked<StoreError>>(())
        })
    }

    async fn delete_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        now: Timestamp,
        events: RemovalEvents<TopicCommentView>,
    ) -> StoreResult<Option<TopicCommentView>> {
        let mut s = self.state();
        let Some((topic, i)) = s.topic_comment_at(team, id) else {
            return Ok(None);
        };
        let view = s.comment_view(&s.topics[&topic], &s.topics[&topic].comments[i]);
        if view.comment.is_deleted() {
            return Ok(None);
        }
        let events = events(&view);
        let Some(row) = s.topics.get_mut(&topic) else {
            return Ok(None);
        };
        let answered = |row: &TopicRow, id: TopicCommentId| {
            row.comments.iter().any(|c| c.parent_id == Some(id))
        };
        match TopicComment::removal(answered(row, id)) {
            Removal::Tombstone => row.comments[i].tombstone(now),
            Removal::Remove => {
                row.comments.remove(i);
                // Tombstones above it left without replies go too.
                let mut parent = view.comment.parent_id;
                while let Some(above) = parent {
                    let Some(j) = row.comments.iter().position(|c| c.id == above) else {
                        break;
                    };
                    if !row.comments[j].is_deleted() || answered(row, above) {
                        break;
                    }
                    parent = row.comments.remove(j).parent_id;
                }
            }
        }
        s.append(&events);
        Ok(Some(view))
    }

    async fn comment_threads(
        &self,
        team: TeamId,
        query: &ThreadQuery,
    ) -> StoreResult<Paged<CommentThread>> {
        let s = self.state();
        let rows: Vec<&TopicRow> = s
            .topics
            .values()
            .filter(|r| {
                r.topic.team_id == team
                    && query.topic.is_none_or(|id| r.topic.id == id)
                    && s.in_thread_scope(r, query.scope)
            })
            .collect();
        let mut roots: Vec<(&TopicRow, &TopicComment)> = rows
            .iter()
            .flat_map(|r| {
                r.comments
                    .iter()
                    .filter(|c| c.parent_id.is_none())
                    .map(move |c| (*r, c))
            })
            .collect();
        let key = |c: &TopicComment| match query.sort {
            CommentSort::CreatedAt => c.created_at,
            CommentSort::UpdatedAt => c.updated_at,
        };
        roots.sort_by(|(_, a), (_, b)| {
            directed(key(a).cmp(&key(b)).then(a.id.cmp(&b.id)), query.direction)
        });
        let page = page_of(roots, query.page);
        let items = page
            .items
            .into_iter()
            .map(|(row, root)| {
                let mut replies: Vec<&TopicComment> = row
                    .comments
                    .iter()
                    .filter(|c| c.root_id == root.id && c.parent_id.is_some())
                    .collect();
                replies.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
                CommentThread {
                    root: s.comment_view(row, root),
                    replies: replies
                        .into_iter()
                        .map(|c| s.comment_view(row, c))
                        .collect(),
                }
            })
            .collect();
        Ok(Paged {
            items,
            total: page.total,
            page: page.page,
        })
    }

    async fn set_topic_following(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
        follow: bool,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(row) = s.topic_row_mut(team, topic) else {
            return Ok(false);
        };
        row.follows.set(subscriber, follow, at);
        Ok(true)
    }

    async fn topic_followers(
        &self,
        team: TeamId,
        topic: TopicId,
    ) -> StoreResult<Vec<SubscriberId>> {
        let s = self.state();
        Ok(s.topic_row(team, topic)
            .map(|row| row.follows.by_time())
            .unwrap_or_default())
    }
}

impl TopicRow {
    /// The topic's followers, in follow order (for notifications).
    pub(crate) fn follower_ids(&self) -> Vec<SubscriberId> {
        self.follows.ids()
    }
}
