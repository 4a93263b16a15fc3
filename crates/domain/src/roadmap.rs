//! Roadmaps: named sets of stages through which topics (feature requests) move.

use crate::{
    error::DomainResult,
    ids::{RoadmapId, TeamId},
    text,
    timestamp::Timestamp,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roadmap {
    pub id: RoadmapId,
    pub team_id: TeamId,
    pub name: String,
    pub description: String,
    /// Its stages start private unless they say otherwise (`StageMeta::for_new_stage`).
    pub is_private: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The validated fields of `roadmaps.update`; absent ones stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoadmapPatch {
    pub name: Option<String>,
    pub description: Option<String>,
}

impl RoadmapPatch {
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
