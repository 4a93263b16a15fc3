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
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Roadmap {
    /// A validated `roadmaps.create`.
    pub fn new(
        team_id: TeamId,
        name: Option<&str>,
        description: Option<&str>,
        now: Timestamp,
    ) -> DomainResult<Self> {
        Ok(Self {
            id: RoadmapId::new(),
            team_id,
            name: text::required("name", name, text::NAME_MAX)?,
            description: text::optional("description", description, text::TEXT_MAX)?
                .unwrap_or_default(),
            created_at: now,
            updated_at: now,
        })
    }

    /// A validated `roadmaps.update`: only the given fields change.
    pub fn apply(
        &mut self,
        name: Option<&str>,
        description: Option<&str>,
        now: Timestamp,
    ) -> DomainResult<()> {
        let name = name
            .map(|n| text::required("name", Some(n), text::NAME_MAX))
            .transpose()?;
        let description = text::optional("description", description, text::TEXT_MAX)?;
        if let Some(name) = name {
            self.name = name;
        }
        if let Some(description) = description {
            self.description = description;
        }
        self.updated_at = now;
        Ok(())
    }
}
