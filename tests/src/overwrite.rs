//! Whole-row saves for the storage tests, written with the stores' `edit_*` methods: a test
//! builds the row it wants stored and puts it in place of the stored one, as one edit (see
//! `sounding_domain::edit`). Use cases never do this; they edit the row as stored.

use async_trait::async_trait;
use sounding_domain::{
    board::Board,
    edit::Edited,
    event::NewEvent,
    feedback::Feedback,
    ids::TagId,
    ports::{Store, StoreResult},
    roadmap::Roadmap,
    stage::Stage,
    tag::{Tag, TagRef},
    team::Team,
    topic::Topic,
};

/// What saving an item with its tags did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retagged {
    Saved,
    /// The item is gone (nothing written).
    FeedbackGone,
    /// A tag id is not one of the team's tags (nothing written).
    UnknownTag,
}

/// Whether the edit found its row.
fn found<T>(edited: &Edited<T>) -> bool {
    !matches!(edited, Edited::Gone)
}

#[async_trait]
pub trait Overwrite {
    /// Saves every field of the item but its counts; `false` (no events) when it is gone.
    async fn save_feedback(&self, feedback: &Feedback, events: &[NewEvent]) -> StoreResult<bool>;
    /// `save_feedback` that also gives the item exactly `tags`.
    async fn save_feedback_tagged(
        &self,
        feedback: &Feedback,
        tags: &[TagId],
        events: &[NewEvent],
    ) -> StoreResult<Retagged>;
    async fn save_team(&self, team: &Team) -> StoreResult<()>;
    async fn save_board(&self, board: &Board) -> StoreResult<()>;
    async fn save_roadmap(&self, roadmap: &Roadmap) -> StoreResult<bool>;
    /// Saves name and meta and moves the stage to `position`; the stage as stored.
    async fn save_stage(&self, stage: &Stage, position: Option<i64>) -> StoreResult<Option<Stage>>;
    async fn save_topic(&self, topic: &Topic, events: &[NewEvent]) -> StoreResult<bool>;
    async fn save_tag(&self, tag: &Tag) -> StoreResult<bool>;
}

#[async_trait]
impl<S: Store + ?Sized> Overwrite for S {
    async fn save_feedback(&self, feedback: &Feedback, events: &[NewEvent]) -> StoreResult<bool> {
        let (item, events) = (feedback.clone(), events.to_vec());
        let edited = self
            .edit_feedback(
                feedback.team_id,
                feedback.id,
                Box::new(move |view| {
                    view.feedback = item;
                    Ok(events)
                }),
            )
            .await?;
        Ok(found(&edited))
    }

    async fn save_feedback_tagged(
        &self,
        feedback: &Feedback,
        tags: &[TagId],
        events: &[NewEvent],
    ) -> StoreResult<Retagged> {
        let (item, events) = (feedback.clone(), events.to_vec());
        let mut refs: Vec<TagRef> = Vec::new();
        for id in tags {
            if !refs.iter().any(|r| r.id == *id) {
                // Only the ids are stored; the rest is read from the tags.
                refs.push(TagRef {
                    id: *id,
                    name: String::new(),
                    color: String::new(),
                });
            }
        }
        let edited = self
            .edit_feedback(
                feedback.team_id,
                feedback.id,
                Box::new(move |view| {
                    view.feedback = item;
                    view.tags = refs;
                    Ok(events)
                }),
            )
            .await?;
        Ok(match edited {
            Edited::Gone => Retagged::FeedbackGone,
            Edited::Refused(_) => Retagged::UnknownTag,
            Edited::Unchanged(_) | Edited::Changed(_) => Retagged::Saved,
        })
    }

    async fn save_team(&self, team: &Team) -> StoreResult<()> {
        let whole = team.clone();
        self.edit_team(
            team.id,
            Box::new(move |stored| {
                *stored = whole;
                Ok(Vec::new())
            }),
        )
        .await?;
        Ok(())
    }

    async fn save_board(&self, board: &Board) -> StoreResult<()> {
        let whole = board.clone();
        self.edit_board(
            board.team_id,
            board.id,
            Box::new(move |view| {
                view.board = whole;
                Ok(Vec::new())
            }),
        )
        .await?;
        Ok(())
    }

    async fn save_roadmap(&self, roadmap: &Roadmap) -> StoreResult<bool> {
        let whole = roadmap.clone();
        let edited = self
            .edit_roadmap(
                roadmap.team_id,
                roadmap.id,
                Box::new(move |stored| {
                    // Name and description only, as `roadmaps.update`.
                    stored.name = whole.name;
                    stored.description = whole.description;
                    stored.updated_at = whole.updated_at;
                    Ok(Vec::new())
                }),
            )
            .await?;
        Ok(found(&edited))
    }

    async fn save_stage(&self, stage: &Stage, position: Option<i64>) -> StoreResult<Option<Stage>> {
        let whole = stage.clone();
        let edited = self
            .edit_stage(
                stage.team_id,
                stage.id,
                position,
                Box::new(move |stored| {
                    stored.name = whole.name;
                    stored.meta = whole.meta;
                    stored.updated_at = whole.updated_at;
                    Ok(Vec::new())
                }),
            )
            .await?;
        Ok(match edited {
            Edited::Unchanged(stage) | Edited::Changed(stage) => Some(stage),
            Edited::Gone | Edited::Refused(_) => None,
        })
    }

    async fn save_topic(&self, topic: &Topic, events: &[NewEvent]) -> StoreResult<bool> {
        let (whole, events) = (topic.clone(), events.to_vec());
        let edited = self
            .edit_topic(
                topic.team_id,
                topic.id,
                Box::new(move |view| {
                    view.topic = Topic {
                        visits: view.topic.visits,
                        ..whole
                    };
                    Ok(events)
                }),
            )
            .await?;
        Ok(found(&edited))
    }

    async fn save_tag(&self, tag: &Tag) -> StoreResult<bool> {
        let whole = tag.clone();
        let edited = self
            .edit_tag(
                tag.team_id,
                tag.id,
                Box::new(move |stored| {
                    *stored = whole;
                    Ok(Vec::new())
                }),
            )
            .await?;
        Ok(found(&edited))
    }
}
