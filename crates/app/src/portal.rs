//! The public portal (`GET /p/<subdomain>`): what a visitor without a credential may read of a
//! team. A visitor is [`Caller::Visitor`]: they see exactly what the public operations show a
//! subscriber who is not a team member, through the same use cases, and nothing archived.

use sounding_domain::{
    access::Caller,
    board::BoardView,
    feedback::FeedbackView,
    feedback_comment::CommentView,
    page::Paged,
    ports::{BoardStore, Clock, FeedbackStore, RoadmapStore, TeamStore, TopicStore},
    roadmap::Roadmap,
    stage::StageView,
    team::{parse_subdomain, Team},
    topic::TopicView,
    Entity,
};

use crate::{
    boards::list_public_boards,
    error::{AppError, AppResult},
    feedback::{list_public_feedback, public_feedback_info, FeedbackListInput, FeedbackLookup},
    feedback_comments::{list_comments, CommentListInput},
    roadmaps::{stage_info, StageInfoInput},
};

/// Items on one page of the portal's feedback list.
pub const ITEMS_PER_PAGE: i64 = 30;
/// Comments shown under an item, oldest first.
pub const COMMENTS_SHOWN: i64 = 100;
/// Topics shown in each stage of a roadmap, most voted first.
pub const TOPICS_PER_STAGE: i64 = 50;

/// A team's portal, as a visitor opens it.
#[derive(Debug, Clone)]
pub struct Portal {
    /// The team whose portal it is.
    pub team: Team,
    /// The visitor, reading as [`Caller::Visitor`] of that team.
    pub visitor: Caller,
}

/// How the front page's list is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontRequest {
    /// `top` (most votes) or `new` (the default).
    pub sort: Option<String>,
    /// A public board's id: only its items.
    pub board: Option<String>,
    /// Words matched within titles and texts.
    pub search: Option<String>,
    /// 1 or more; 1 when absent.
    pub page: Option<i64>,
}

impl Portal {
    /// The portal of the team whose subdomain this is; not found for an unknown or malformed
    /// one.
    pub async fn open(store: &dyn TeamStore, subdomain: &str) -> AppResult<Portal> {
        let not_found = || AppError::not_found(Entity::Team);
        let subdomain = parse_subdomain(subdomain).map_err(|_| not_found())?;
        let team = store
            .team_by_subdomain(&subdomain)
            .await?
            .ok_or_else(not_found)?;
        let visitor = Caller::Visitor(team.id);
        Ok(Portal { team, visitor })
    }

    /// The front page. 400 for a sort, search or page it cannot take; not found for a board that
    /// is not one of the team's public boards.
    pub async fn front(
        &self,
        boards: &dyn BoardStore,
        feedback: &dyn FeedbackStore,
        clock: &dyn Clock,
        request: FrontRequest,
    ) -> AppResult<Front> {
        let sort_by = match request.sort.as_deref() {
            None | Some("new") => "newest",
            Some("top") => "top",
            Some(other) => {
                return Err(AppError::invalid(format!(
                    "sort must be top or new, got {other:?}"
                )))
            }
        };
        let page = request.page.unwrap_or(1);
        if !(1..=10_000).contains(&page) {
            return Err(AppError::invalid("page must be from 1 to 10000"));
        }
        let shown = list_public_boards(boards, &self.visitor).await?;
        let board = match request.board.as_deref() {
            None => None,
            Some(id) => Some(
                shown
                    .iter()
                    .find(|b| b.board.id.to_string() == id)
                    .cloned()
                    .ok_or_else(|| AppError::not_found(Entity::Board))?,
            ),
        };
        let input = FeedbackListInput {
            sort_by: Some(sort_by.into()),
            board_id: board.as_ref().map(|b| b.board.id.to_string()),
            search: request.search.filter(|s| !s.trim().is_empty()),
            limit: Some(ITEMS_PER_PAGE),
            offset: Some((page - 1) * ITEMS_PER_PAGE),
            ..FeedbackListInput::default()
        };
        let items = list_public_feedback(feedback, clock, &self.visitor, input)
            .await?
            .items;
        Ok(Front {
            boards: shown,
            board,
            items,
        })
    }

    /// An item's page: the item and its first public comments. Not found for anything a visitor
    /// may not read, and for archived items.
    pub async fn item(
        &self,
        store: &dyn FeedbackStore,
        id: &str,
    ) -> AppResult<(FeedbackView, Paged<CommentView>)> {
        let lookup = FeedbackLookup {
            id: Some(id.to_owned()),
            url_id: None,
        };
        let (view, _) = public_feedback_info(store, &self.visitor, lookup).await?;
        if view.feedback.archived_at.is_some() {
            return Err(AppError::not_found(Entity::Feedback));
        }
        let comments = CommentListInput {
            feedback_id: Some(id.to_owned()),
            limit: Some(COMMENTS_SHOWN),
            ..CommentListInput::default()
        };
        let comments = list_comments(store, &self.visitor, comments).await?;
        Ok((view, comments))
    }

    /// The team's roadmaps that are not private, oldest first, with their public stages (as
    /// `public/stages.list` gives them to a visitor) and each stage's topics (as
    /// `public/stages.info`).
    pub async fn roadmaps(
        &self,
        store: &(impl RoadmapStore + TopicStore + ?Sized),
    ) -> AppResult<Vec<PublicRoadmap>> {
        let visitor = &self.visitor;
        let mut shown = Vec::new();
        for roadmap in store.roadmaps(self.team.id).await? {
            if roadmap.is_private {
                continue;
            }
            let mut stages = Vec::new();
            for stage in store.stages(self.team.id, roadmap.id, false).await? {
                let input = StageInfoInput {
                    stage_id: Some(stage.stage.id.to_string()),
                    limit: Some(TOPICS_PER_STAGE),
                    sort: Some("voteCount".into()),
                    ..StageInfoInput::default()
                };
                stages.push(stage_info(store, visitor, input).await?);
            }
            shown.push(PublicRoadmap { roadmap, stages });
        }
        Ok(shown)
    }
}

/// A public roadmap with its public stages, each with its most voted published topics.
#[derive(Debug, Clone)]
pub struct PublicRoadmap {
    /// The roadmap.
    pub roadmap: Roadmap,
    /// Its public stages by order, each with up to [`TOPICS_PER_STAGE`] topics.
    pub stages: Vec<(StageView, Paged<TopicView>)>,
}

/// The portal's front page: the team's public boards and a page of their published items.
#[derive(Debug, Clone)]
pub struct Front {
    /// The team's public boards, by order.
    pub boards: Vec<BoardView>,
    /// The board asked for, when one was.
    pub board: Option<BoardView>,
    /// A page of published, unarchived items on public boards (or none).
    pub items: Paged<FeedbackView>,
}
