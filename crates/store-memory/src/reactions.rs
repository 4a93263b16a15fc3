//! What hangs off both a feedback item and a topic, in memory: its follows and its votes
//! (one per subscriber), with the rules both keep the same way.

use std::ops::{Deref, DerefMut};

use sounding_domain::{
    feedback_vote::FeedbackVote, ids::SubscriberId, timestamp::Timestamp, topic_vote::TopicVote,
};

use crate::feedback::count;

pub(crate) struct Follow {
    pub(crate) subscriber: SubscriberId,
    pub(crate) since: Timestamp,
}

/// The follows of an item or a topic, in the order they were made.
#[derive(Default)]
pub(crate) struct Follows(Vec<Follow>);

impl Follows {
    /// The creator's follow, from the creation.
    pub(crate) fn of_creator(subscriber: SubscriberId, since: Timestamp) -> Self {
        Self(vec![Follow { subscriber, since }])
    }

    /// Starts following (a no-op, keeping the first time, when already following).
    pub(crate) fn follow(&mut self, subscriber: SubscriberId, since: Timestamp) {
        if !self.contains(subscriber) {
            self.0.push(Follow { subscriber, since });
        }
    }

    /// `set_following` / `set_topic_following`: starts (from `at`) or stops following.
    pub(crate) fn set(&mut self, subscriber: SubscriberId, follow: bool, at: Timestamp) {
        if follow {
            self.follow(subscriber, at);
        } else {
            self.0.retain(|f| f.subscriber != subscriber);
        }
    }

    /// The followers by follow time, then id (what the ports report).
    pub(crate) fn by_time(&self) -> Vec<SubscriberId> {
        let mut follows: Vec<&Follow> = self.0.iter().collect();
        follows.sort_by(|a, b| a.since.cmp(&b.since).then(a.subscriber.cmp(&b.subscriber)));
        follows.into_iter().map(|f| f.subscriber).collect()
    }

    /// Whether the subscriber follows.
    pub(crate) fn contains(&self, subscriber: SubscriberId) -> bool {
        self.0.iter().any(|f| f.subscriber == subscriber)
    }

    /// The followers in follow order (for notifications).
    pub(crate) fn ids(&self) -> Vec<SubscriberId> {
        self.0.iter().map(|f| f.subscriber).collect()
    }
}

impl IntoIterator for Follows {
    type Item = Follow;
    type IntoIter = std::vec::IntoIter<Follow>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A vote on an item or a topic: who cast it.
pub(crate) trait Vote: Clone {
    fn voter(&self) -> SubscriberId;
}

impl Vote for FeedbackVote {
    fn voter(&self) -> SubscriberId {
        self.subscriber_id
    }
}

impl Vote for TopicVote {
    fn voter(&self) -> SubscriberId {
        self.creator_id
    }
}

/// The votes on an item or a topic, in the order they were cast; one per subscriber.
pub(crate) struct Votes<V>(Vec<V>);

impl<V> Default for Votes<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V: Vote> Votes<V> {
    pub(crate) fn count(&self) -> i64 {
        count(self.0.len())
    }

    /// Adds the vote unless its subscriber voted already: the count after, or `None`.
    pub(crate) fn cast(&mut self, vote: &V) -> Option<i64> {
        if self.of(vote.voter()).is_some() {
            return None;
        }
        self.0.push(vote.clone());
        Some(self.count())
    }

    /// Removes the subscriber's vote if any; the count after.
    pub(crate) fn retract(&mut self, subscriber: SubscriberId) -> i64 {
        self.0.retain(|v| v.voter() != subscriber);
        self.count()
    }

    /// The subscriber's vote.
    pub(crate) fn of(&self, subscriber: SubscriberId) -> Option<&V> {
        self.0.iter().find(|v| v.voter() == subscriber)
    }
}

impl<V> IntoIterator for Votes<V> {
    type Item = V;
    type IntoIter = std::vec::IntoIter<V>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V> Deref for Votes<V> {
    type Target = Vec<V>;

    fn deref(&self) -> &Vec<V> {
        &self.0
    }
}

impl<V> DerefMut for Votes<V> {
    fn deref_mut(&mut self) -> &mut Vec<V> {
        &mut self.0
    }
}
