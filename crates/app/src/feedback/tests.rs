//! The feedback rules the use cases own — moderation, visibility, creator-only changes, status
//! events, the vote conflict — checked against the in-memory store.

use serde_json::json;
use sounding_domain::{
    access::{Caller, KeyHolder, SubscriberSession},
    event::EventKind,
    feedback::FeedbackStatus,
    feedback_vote::ALREADY_VOTED,
    ports::{Clock, FeedbackStore, OutboxStore, SubscriberStore},
    subscriber::Identify,
    DomainError, Entity,
};
use sounding_store_memory::MemoryStore;

use super::*;
use crate::{
    boards::{create_board, BoardInput},
    feedback_votes::cast_vote,
    teams::{create_team, update_team, NewTeam, UpdateTeam},
    AppError,
};

pub(super) use crate::test_support::Fixed;

pub(super) struct World {
    pub(super) store: MemoryStore,
    pub(super) owner: KeyHolder,
}

pub(super) async fn world() -> World {
    let store = MemoryStore::new();
    let created = create_team(
        &store,
        &Fixed,
        NewTeam {
            name: "Acme".into(),
            subdomain: "acme".into(),
            owner_email: Some("boss@acme.io".into()),
        },
    )
    .await
    .unwrap();
    let owner = KeyHolder {
        team_id: created.team.id,
        key_id: created.key.id,
        user_id: created.owner.id,
        role: created.owner.role,
        read_only: false,
    };
    World { store, owner }
}

impl World {
    async fn subscriber(&self, email: &str) -> SubscriberSession {
        let identify = Identify::new(Some(email), None, None, None, None).unwrap();
        let (subscriber, _) = self
            .store
            .identify(self.owner.team_id, &identify, Fixed.now())
            .await
            .unwrap();
        // As authentication resolves it.
        self.store
            .subscriber_session(self.owner.team_id, subscriber.id)
            .await
            .unwrap()
            .unwrap()
    }

    async fn kinds(&self) -> Vec<String> {
        self.store
            .events(self.owner.team_id)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.kind)
            .collect()
    }
}

fn titled(title: &str) -> PublicFeedbackInput {
    PublicFeedbackInput {
        title: Some(title.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn team_moderation_holds_public_feedback_until_published() {
    let w = world().await;
    update_team(
        &w.store,
        &Fixed,
        &w.owner,
        UpdateTeam {
            public_board_moderation: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let jane = w.subscriber("jane@x.io").await;
    let view = create_public_feedback(&w.store, &Fixed, &jane, titled("Dark mode"))
        .await
        .unwrap();
    assert_eq!(view.feedback.published_at, None);
    assert_eq!(view.feedback.status, FeedbackStatus::InReview);
    assert_eq!(w.kinds().await, ["new_feedback", "feedbacks.create"]);

    let id = view.feedback.id.to_string();
    let lookup = || FeedbackLookup {
        id: Some(id.clone()),
        url_id: None,
    };
    let hidden = public_feedback_info(&w.store, &Caller::Team(w.owner.clone()), lookup()).await;
    assert_eq!(hidden.unwrap_err(), AppError::not_found(Entity::Feedback));

    moderate_feedback(
        &w.store,
        &Fixed,
        &w.owner,
        Some(&id),
        sounding_domain::feedback::Moderation::Publish,
    )
    .await
    .unwrap();
    let (shown, following) = public_feedback_info(&w.store, &Caller::Subscriber(jane), lookup())
        .await
        .unwrap();
    assert!(shown.feedback.published_at.is_some());
    assert_eq!(following, Some(true), "the creator follows the item");
}

#[tokio::test]
async fn a_private_board_does_not_exist_for_non_members() {
    let w = world().await;
    let board = create_board(
        &w.store,
        &Fixed,
        &w.owner,
        BoardInput {
            name: Some("Internal".into()),
            meta: Some(json!({"isPublic": false})),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let input = || PublicFeedbackInput {
        board_id: Some(board.board.id.to_string()),
        ..titled("Secret")
    };
    let outsider = w.subscriber("jane@x.io").await;
    assert_eq!(
        create_public_feedback(&w.store, &Fixed, &outsider, input())
            .await
            .unwrap_err(),
        AppError::not_found(Entity::Board)
    );
    // The owner's own address makes a subscriber a team member.
    let member = w.subscriber("boss@acme.io").await;
    let view = create_public_feedback(&w.store, &Fixed, &member, input())
        .await
        .unwrap();
    assert_eq!(view.board.unwrap().id, board.board.id);
}

#[tokio::test]
async fn only_the_creator_updates_and_nothing_changes_otherwise() {
    let w = world().await;
    let jane = w.subscriber("jane@x.io").await;
    let joe = w.subscriber("joe@x.io").await;
    let view = create_public_feedback(&w.store, &Fixed, &jane, titled("Dark mode"))
        .await
        .unwrap();
    let changes = FeedbackChanges {
        id: Some(view.feedback.id.to_string()),
        title: Some("Light mode".into()),
        ..Default::default()
    };
    assert_eq!(
        update_public_feedback(&w.store, &Fixed, &joe, changes.clone())
            .await
            .unwrap_err(),
        AppError::forbidden("You do not have permission to update this feedback")
    );
    let stored = w
        .store
        .feedback(w.owner.team_id, view.feedback.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.feedback.title, "Dark mode");

    let updated = update_public_feedback(&w.store, &Fixed, &jane, changes)
        .await
        .unwrap();
    assert_eq!(
        updated.feedback.url(),
        format!("/light-mode-{}", view.feedback.url_id)
    );
    assert_eq!(
        updated.feedback.last_modified_by_id,
        Some(jane.subscriber.id)
    );
}

#[tokio::test]
async fn a_status_change_is_announced_once_with_the_previous_status() {
    let w = world().await;
    let view = create_feedback(
        &w.store,
        &Fixed,
        &w.owner,
        NewFeedbackInput {
            title: Some("Export".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let to_planned = || FeedbackChanges {
        id: Some(view.feedback.id.to_string()),
        status: Some("planned".into()),
        ..Default::default()
    };
    update_feedback(&w.store, &Fixed, &w.owner, to_planned())
        .await
        .unwrap();
    update_feedback(&w.store, &Fixed, &w.owner, to_planned())
        .await
        .unwrap();
    // The second update changes nothing, so it announces nothing.
    assert_eq!(
        w.kinds().await,
        ["new_feedback", "feedback_status_change", "feedbacks.update"]
    );
    let events = w.store.events(w.owner.team_id).await.unwrap();
    assert_eq!(events[1].payload["previousStatus"], "in_review");
    assert_eq!(events[1].payload["status"], "planned");
    assert_eq!(events[1].payload["data"]["status"], "planned");
    assert_eq!(
        events[1].kind,
        EventKind::FeedbackStatusChange.as_str().to_owned()
    );
}

#[tokio::test]
async fn a_second_vote_is_a_conflict_and_writes_nothing() {
    let w = world().await;
    let jane = w.subscriber("jane@x.io").await;
    let view = create_public_feedback(&w.store, &Fixed, &jane, titled("Dark mode"))
        .await
        .unwrap();
    let id = view.feedback.id.to_string();
    let (_, total) = cast_vote(&w.store, &Fixed, &jane, Some(&id)).await.unwrap();
    assert_eq!(total, 1);
    assert_eq!(
        cast_vote(&w.store, &Fixed, &jane, Some(&id))
            .await
            .unwrap_err(),
        AppError::Domain(DomainError::Conflict(ALREADY_VOTED.into()))
    );
    let votes = w
        .kinds()
        .await
        .into_iter()
        .filter(|k| k == "new_feedback_vote")
        .count();
    assert_eq!(votes, 1);
}

#[tokio::test]
async fn bad_list_parameters_name_the_allowed_values() {
    let w = world().await;
    let input = FeedbackListInput {
        sort_by: Some("hot".into()),
        ..Default::default()
    };
    assert_eq!(
        list_feedback(&w.store, &Fixed, &w.owner, input)
            .await
            .unwrap_err(),
        AppError::invalid("sortBy must be one of newest, top, trending")
    );
    let input = FeedbackListInput {
        statuses: vec!["planned".into(), "done".into()],
        ..Default::default()
    };
    assert_eq!(
        list_feedback(&w.store, &Fixed, &w.owner, input)
            .await
            .unwrap_err(),
        AppError::invalid(
            "status must be one of in_review, in_progress, planned, completed, closed"
        )
    );
}
