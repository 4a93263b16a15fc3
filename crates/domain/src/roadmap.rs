//! Roadmaps: named sets of stages through which topics (feature requests) move.

use crate::{
    error::DomainResult,
    ids::{RoadmapId, TeamId},
    text,
    timestamp::Timestamp,
};

/// A named set of stages of one team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roadmap {
    /// Names the roadmap in `roadmaps.*`, and in its stages and topics.
    pub id: RoadmapId,
    /// The team that owns it.
    pub team_id: TeamId,
    /// 1–255 characters after trimming.
    pub name: String,
    /// At most 50,000 characters; empty when not given.
    pub description: String,
    /// Its stages start private unless they say otherwise (`StageMeta::for_new_stage`).
    pub is_private: bool,
    /// When the roadmap was created.
    pub created_at: Timestamp,
    /// The last change of its name or description.
    pub updated_at: Timestamp,
}

/// The validated fields of `roadmaps.update`; absent ones stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoadmapPatch {
    /// A new name: trimmed, 1–255 characters.
    pub name: Option<String>,
    /// A new description: trimmed, at most 50,000 characters, possibly empty.
    pub description: Option<String>,
}

impl RoadmapPatch {
    /// Validates `roadmaps.update`: a name, when given, may not be blank.
    pub fn new(name: Option<&str>, description: Option<&str>) -> DomainResult<Self> {
        Ok(Self {
            name: text::required_if_given("name", name, text::NAME_MAX)?,
            description: text::optional("description", description, text::TEXT_MAX)?,
        })
    }
}

impl Roadmap {
    /// A validated `roadmaps.create`.
    pub fn new(
        team_id: TeamId,
        name: Option<&str>,
        description: Option<&str>,
        is_private: bool,
        now: Timestamp,
    ) -> DomainResult<Self> {
        Ok(Self {
            id: RoadmapId::new(),
            team_id,
            name: text::required("name", name, text::NAME_MAX)?,
            description: text::optional("description", description, text::TEXT_MAX)?
                .unwrap_or_default(),
            is_private,
            created_at: now,
            updated_at: now,
        })
    }

    /// Applies a `roadmaps.update`: only the given fields change, and `updatedAt` moves
    /// only when something did.
    pub fn apply(&mut self, patch: RoadmapPatch, now: Timestamp) {
        let before = self.clone();
        if let Some(name) = patch.name {
            self.name = name;
        }
        if let Some(description) = patch.description {
            self.description = description;
        }
        if *self != before {
            self.updated_at = now;
        }
    }
}
