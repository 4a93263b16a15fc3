//! Notifications: an event carrying `NotifyFollowers` writes one notification per follower but
//! the actor, with the write and only if it happens; pages newest first with totals and the
//! unread count; marking read touches only the subscriber's own unread ones.

use sounding_tests::overwrite::Overwrite;
use std::sync::Arc;

use sounding_domain::{
    event::{EventKind, NewEvent},
    feedback::FeedbackStatus,
    ids::{NotificationId, SubscriberId, TeamId},
    notification::{
        MarkRead, NotificationKind, NotificationPage, NotificationQuery, NotifyFollowers,
        NotifyTarget,
    },
    page::PageRequest,
    ports::Store,
    timestamp::Timestamp,
};

use crate::{
    fixtures::conflict,
    fixtures::{
        comment, event, everything, feedback, stage, stored_feedback, stored_roadmap, stored_team,
        stored_topic, subscriber, t0, topic, topic_comment,
    },
};

fn all(unread_only: bool) -> NotificationQuery {
    NotificationQuery {
        unread_only,
        page: everything(),
    }
}

/// A page of every notification, read or not.
fn page_query(limit: i64, offset: i64) -> NotificationQuery {
    NotificationQuery {
        unread_only: false,
        page: PageRequest { limit, offset },
    }
}

async fn page_of(store: &dyn Store, team: TeamId, who: SubscriberId) -> NotificationPage {
    store.notifications(team, who, &all(false)).await.unwrap()
}

async fn count(store: &dyn Store, team: TeamId, who: SubscriberId) -> i64 {
    page_of(store, team, who).await.page.total
}

fn comment_notice(target: NotifyTarget, actor: SubscriberId, title: &str) -> NotifyFollowers {
    NotifyFollowers {
        target,
        actor: Some(actor),
        kind: NotificationKind::Comment,
        comment_id: Some(uuid::Uuid::now_v7()),
        title: title.into(),
        status: None,
        previous_status: None,
    }
}

/// A change by nobody in particular (`kind` a status or stage change) from `previous` to `now`.
fn change_notice(
    target: NotifyTarget,
    kind: NotificationKind,
    title: &str,
    (previous, now): (&str, &str),
) -> NotifyFollowers {
    NotifyFollowers {
        target,
        actor: None,
        kind,
        comment_id: None,
        title: title.into(),
        status: Some(now.into()),
        previous_status: Some(previous.into()),
    }
}

pub async fn feedback_followers_but_the_actor_are_notified_with_the_write(store: Arc<dyn Store>) {
    let store = &*store;
    let team = stored_team(store, "notify").await.team.id;
    let other = stored_team(store, "notify-other").await.team.id;
    let ann = subscriber(store, team, "ann@example.com").await;
    let bob = subscriber(store, team, "bob@example.com").await;
    let carl = subscriber(store, team, "carl@example.com").await;
    let stranger = subscriber(store, other, "ann@example.com").await;
    let item = stored_feedback(store, feedback(team, None, ann.id, "n0000001", t0())).await;
    store
        .set_following(team, item.id, bob.id, true, t0())
        .await
        .unwrap();

    // Carl comments (and so follows): Ann and Bob are told, Carl is not.
    let at = t0().plus_seconds(10);
    let c = comment(&item, carl.id, "Me too", false, at);
    let notice = comment_notice(NotifyTarget::Feedback(item.id), carl.id, &item.title);
    let ev = event(team, EventKind::FeedbackCommentsCreate, at, 1).notifying(notice.clone());
    assert!(store.insert_comment(&c, &[ev]).await.unwrap());
    for who in [ann.id, bob.id] {
        let page = page_of(store, team, who).await;
        assert_eq!((page.page.total, page.unread), (1, 1));
        let view = &page.page.items[0];
        let n = &view.notification;
        assert_eq!(
            (n.team_id, n.subscriber_id, n.kind),
            (team, who, NotificationKind::Comment)
        );
        assert_eq!((n.feedback_id, n.topic_id), (Some(item.id), None));
        assert_eq!(n.comment_id, notice.comment_id);
        assert_eq!(
            (n.title.as_str(), n.actor_id),
            (item.title.as_str(), Some(carl.id))
        );
        assert_eq!((n.read_at, n.created_at), (None, at));
        assert_eq!(view.actor.as_ref().map(|a| a.id), Some(carl.id));
    }
    assert_eq!(count(store, team, carl.id).await, 0);
    assert_eq!(count(store, other, stranger.id).await, 0);

    // A status change by nobody in particular: every follower, Carl too.
    let mut changed = item.clone();
    changed.status = FeedbackStatus::Planned;
    let notice = change_notice(
        NotifyTarget::Feedback(item.id),
        NotificationKind::StatusChange,
        &item.title,
        ("in_review", "planned"),
    );
    let ev = event(team, EventKind::FeedbackStatusChange, at.plus_seconds(1), 2)
        .notifying(notice.clone());
    assert!(store.save_feedback(&changed, &[ev]).await.unwrap());
    for who in [ann.id, bob.id, carl.id] {
        let page = page_of(store, team, who).await;
        let n = &page.page.items[0];
        assert_eq!(n.notification.kind, NotificationKind::StatusChange);
        assert_eq!(n.notification.status.as_deref(), Some("planned"));
        assert_eq!(n.notification.previous_status.as_deref(), Some("in_review"));
        assert_eq!((n.notification.actor_id, &n.actor), (None, &None));
    }

    // No write, no notification: a gone item, a url-id conflict.
    let mut gone = feedback(team, None, ann.id, "n0000002", t0());
    gone.title = "Gone".into();
    let ev = event(team, EventKind::FeedbackStatusChange, at, 3).notifying(NotifyFollowers {
        target: NotifyTarget::Feedback(gone.id),
        ..notice.clone()
    });
    assert!(!store.save_feedback(&gone, &[ev]).await.unwrap());
    let clash = feedback(team, None, bob.id, "n0000001", t0());
    let ev = event(team, EventKind::NewFeedback, at, 4).notifying(notice.clone());
    assert_eq!(
        store.insert_feedback(&clash, &[], &[ev]).await,
        Err(conflict(sounding_domain::ports::Conflict::FeedbackUrlId))
    );
    assert_eq!(count(store, team, ann.id).await, 2);
    assert_eq!(count(store, team, bob.id).await, 2);
    assert_eq!(count(store, team, carl.id).await, 1);
}

pub async fn topic_followers_but_the_actor_are_notified(store: Arc<dyn Store>) {
    let store = &*store;
    let team = stored_team(store, "notify-topics").await.team.id;
    let ann = subscriber(store, team, "ann@example.com").await;
    let bob = subscriber(store, team, "bob@example.com").await;
    let roadmap = stored_roadmap(store, team, "Product").await;
    let st = stage(&roadmap, "Later", t0());
    let st = store.insert_stage(&st, None).await.unwrap().unwrap();
    let tp = stored_topic(store, topic(&st, ann.id, "t0000001", t0())).await;
    store
        .set_topic_following(team, tp.id, bob.id, true, t0())
        .await
        .unwrap();
    let c = topic_comment(&tp, bob.id, None, "Yes", t0().plus_seconds(5));
    let ev = event(team, EventKind::TopicCommentsCreate, c.created_at, 1).notifying(
        comment_notice(NotifyTarget::Topic(tp.id), bob.id, &tp.title),
    );
    assert!(store.insert_topic_comment(&c, &[ev]).await.unwrap());
    let page = page_of(store, team, ann.id).await;
    assert_eq!(page.page.total, 1);
    let n = &page.page.items[0].notification;
    assert_eq!((n.topic_id, n.feedback_id), (Some(tp.id), None));
    assert_eq!(count(store, team, bob.id).await, 0);

    // A move to another stage tells both.
    let ev =
        event(team, EventKind::TopicsUpdate, t0().plus_seconds(6), 2).notifying(change_notice(
            NotifyTarget::Topic(tp.id),
            NotificationKind::StageChange,
            &tp.title,
            ("Later", "Now"),
        ));
    // A real change: an edit that changes nothing writes no events.
    let mut moved = tp.clone();
    moved.updated_at = t0().plus_seconds(6);
    assert!(store.save_topic(&moved, &[ev]).await.unwrap());
    for who in [ann.id, bob.id] {
        let page = page_of(store, team, who).await;
        assert_eq!(
            page.page.items[0].notification.kind,
            NotificationKind::StageChange
        );
    }
}

/// `n` comment notifications for Ann (Bob comments), one second apart from `t0`, appended on
/// their own; their ids, oldest first.
async fn notes_for_ann(
    store: &dyn Store,
    subdomain: &str,
    n: i64,
) -> (TeamId, SubscriberId, SubscriberId, Vec<NotificationId>) {
    let team = stored_team(store, subdomain).await.team.id;
    let ann = subscriber(store, team, "ann@example.com").await;
    let bob = subscriber(store, team, "bob@example.com").await;
    let item = stored_feedback(store, feedback(team, None, ann.id, "p0000001", t0())).await;
    for i in 0..n {
        let ev: NewEvent = event(
            team,
            EventKind::FeedbackCommentsCreate,
            t0().plus_seconds(i),
            i,
        )
        .notifying(comment_notice(
            NotifyTarget::Feedback(item.id),
            bob.id,
            "Item",
        ));
        store.append_events(&[ev]).await.unwrap();
    }
    let mut ids: Vec<NotificationId> = page_of(store, team, ann.id)
        .await
        .page
        .items
        .iter()
        .map(|v| v.notification.id)
        .collect();
    ids.reverse();
    (team, ann.id, bob.id, ids)
}

pub async fn notification_pages_are_newest_first_filtered_and_counted(store: Arc<dyn Store>) {
    let store = &*store;
    let (team, ann, _, ids) = notes_for_ann(store, "notify-pages", 5).await;
    assert_eq!(ids.len(), 5);
    let page = store
        .notifications(team, ann, &page_query(2, 1))
        .await
        .unwrap();
    let got: Vec<NotificationId> = page.page.items.iter().map(|v| v.notification.id).collect();
    assert_eq!(got, vec![ids[3], ids[2]]);
    assert_eq!((page.page.total, page.unread), (5, 5));
    let created: Vec<Timestamp> = page
        .page
        .items
        .iter()
        .map(|v| v.notification.created_at)
        .collect();
    assert_eq!(created, vec![t0().plus_seconds(3), t0().plus_seconds(2)]);

    store
        .mark_notifications_read(team, ann, &MarkRead::Ids(vec![ids[4], ids[0]]), t0())
        .await
        .unwrap();
    let unread = store.notifications(team, ann, &all(true)).await.unwrap();
    let got: Vec<NotificationId> = unread
        .page
        .items
        .iter()
        .map(|v| v.notification.id)
        .collect();
    assert_eq!(got, vec![ids[3], ids[2], ids[1]]);
    assert_eq!((unread.page.total, unread.unread), (3, 3));
    let past_end = store
        .notifications(team, ann, &page_query(10, 9))
        .await
        .unwrap();
    assert!(past_end.page.items.is_empty());
    assert_eq!((past_end.page.total, past_end.unread), (5, 3));
}

pub async fn marking_read_touches_only_the_subscriber_s_unread_ones(store: Arc<dyn Store>) {
    let store = &*store;
    let (team, ann, bob, ids) = notes_for_ann(store, "notify-mark", 3).await;
    let at = t0().plus_seconds(100);
    // Bob cannot mark Ann's.
    assert_eq!(
        store
            .mark_notifications_read(team, bob, &MarkRead::Ids(ids.clone()), at)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .mark_notifications_read(team, bob, &MarkRead::All, at)
            .await
            .unwrap(),
        0
    );
    // Nor another team's subscriber id of the same value.
    let elsewhere = stored_team(store, "notify-mark-2").await.team.id;
    assert_eq!(
        store
            .mark_notifications_read(elsewhere, ann, &MarkRead::All, at)
            .await
            .unwrap(),
        0
    );
    assert_eq!(page_of(store, team, ann).await.unread, 3);

    let unknown = NotificationId::new();
    assert_eq!(
        store
            .mark_notifications_read(team, ann, &MarkRead::Ids(vec![ids[1], unknown]), at)
            .await
            .unwrap(),
        1
    );
    let page = page_of(store, team, ann).await;
    let read: Vec<_> = page
        .page
        .items
        .iter()
        .map(|v| (v.notification.id, v.notification.read_at))
        .collect();
    assert_eq!(
        read,
        vec![(ids[2], None), (ids[1], Some(at)), (ids[0], None)]
    );
    // Already read stays as it was read.
    let later = at.plus_seconds(50);
    assert_eq!(
        store
            .mark_notifications_read(team, ann, &MarkRead::All, later)
            .await
            .unwrap(),
        2
    );
    let page = page_of(store, team, ann).await;
    assert_eq!(page.unread, 0);
    assert_eq!(page.page.items[1].notification.read_at, Some(at));
    assert_eq!(page.page.items[0].notification.read_at, Some(later));
}
