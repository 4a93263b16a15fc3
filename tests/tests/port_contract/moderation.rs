//! The team's moderation of comments: edits of a feedback or topic comment as stored, removals
//! that keep the counts equal to the rows and append their events in the same write, topic
//! comments that stay as tombstones while replies answer them, and replies refused to a
//! parent that is gone.

use std::sync::Arc;

use sounding_domain::{
    edit::Edited,
    event::EventKind,
    feedback_comment::{CommentSort, CommentView, Direction},
    ids::FeedbackCommentId,
    ports::Store,
    subscriber::SubscriberRef,
    topic_comment::{ThreadScope, TopicComment, TopicCommentView, TopicRef, TOMBSTONE_TEXT},
    DomainError, Entity,
};

use crate::{
    fixtures::stored,
    fixtures::{
        at, comment, comment_query, event, feedback, stored_feedback, stored_roadmap, stored_stage,
        stored_team, stored_topic, subscriber, t0, thread_query, topic, topic_comment,
    },
};

pub async fn feedback_comments_are_edited_and_removed_with_their_count(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ann = subscriber(&*store, team, "ann@example.com").await;
    let item = stored_feedback(&*store, feedback(team, None, ann.id, "mod0000001", t0())).await;
    let spam = comment(&item, ann.id, "spam", false, t0());
    let kept = comment(&item, ann.id, "kept", false, t0());
    for c in [&spam, &kept] {
        assert!(store.insert_comment(c, &[]).await.unwrap());
    }
    let view = |c| CommentView {
        comment: c,
        author: Some(SubscriberRef::from(&ann)),
    };
    let count = || async {
        store
            .feedback(team, item.id)
            .await
            .unwrap()
            .unwrap()
            .comment_count
    };

    // An edit sees the comment as stored and writes what it changed, with its events.
    let later = at("2026-03-04T06:00:00.000Z");
    let e1 = event(team, EventKind::FeedbacksUpdate, later, 1);
    let sent = e1.clone();
    let edited = store
        .edit_feedback_comment(
            team,
            kept.id,
            Box::new(move |v| {
                assert_eq!(v.comment.text, "kept");
                v.comment.text = "edited".into();
                v.comment.is_private = true;
                v.comment.updated_at = later;
                Ok(vec![sent])
            }),
        )
        .await
        .unwrap();
    let mut expected = kept.clone();
    expected.text = "edited".into();
    expected.is_private = true;
    expected.updated_at = later;
    assert_eq!(edited, Edited::Changed(view(expected.clone())));
    let all = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    let listed = store.comments(team, item.id, &all).await.unwrap();
    assert!(listed.items.contains(&view(expected.clone())));
    // Another team's, or a missing one, is gone; a refusal writes nothing.
    for (t, id) in [(other, kept.id), (team, FeedbackCommentId::new())] {
        let edited = store
            .edit_feedback_comment(t, id, Box::new(|_| panic!("nothing to edit")))
            .await
            .unwrap();
        assert_eq!(edited, Edited::Gone);
    }
    let refused = store
        .edit_feedback_comment(
            team,
            kept.id,
            Box::new(|v| {
                v.comment.text = "never".into();
                Err(DomainError::NotFound(Entity::Comment))
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        refused,
        Edited::Refused(DomainError::NotFound(Entity::Comment))
    );
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e1)]);

    // A removal takes the row and one off the count, with its events, in one write.
    assert_eq!(count().await, 2);
    assert_eq!(
        store
            .delete_feedback_comment(other, spam.id, Box::new(|_| panic!("not the team's")))
            .await
            .unwrap(),
        None
    );
    let e2 = event(team, EventKind::FeedbackCommentsDelete, later, 2);
    let sent = e2.clone();
    let removed = store
        .delete_feedback_comment(
            team,
            spam.id,
            Box::new(move |v| {
                assert_eq!(v.comment.text, "spam");
                vec![sent]
            }),
        )
        .await
        .unwrap();
    assert_eq!(removed, Some(view(spam.clone())));
    assert_eq!(count().await, 1);
    let listed = store.comments(team, item.id, &all).await.unwrap();
    assert_eq!((listed.items, listed.total), (vec![view(expected)], 1));
    assert_eq!(
        store
            .delete_feedback_comment(team, spam.id, Box::new(|_| panic!("gone")))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.events(team).await.unwrap(),
        vec![stored(&e1), stored(&e2)]
    );
    assert_eq!(count().await, 1);
}

pub async fn topic_comments_become_tombstones_while_answered(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ann = subscriber(&*store, team, "ann@example.com").await;
    let roadmap = stored_roadmap(&*store, team, "Product").await;
    let stage = stored_stage(&*store, &roadmap, "Ideas").await;
    let item = stored_topic(&*store, topic(&stage, ann.id, "modtopic01", t0())).await;
    let t = |n: u32| at(&format!("2026-03-05T00:00:0{n}.000Z"));
    let root = topic_comment(&item, ann.id, None, "root", t(1));
    let answer = topic_comment(&item, ann.id, Some(&root), "answer", t(2));
    let deeper = topic_comment(&item, ann.id, Some(&answer), "deeper", t(3));
    let lone = topic_comment(&item, ann.id, None, "lone", t(4));
    for c in [&root, &answer, &deeper, &lone] {
        assert!(store.insert_topic_comment(c, &[]).await.unwrap());
    }
    let view = |c: &TopicComment| TopicCommentView {
        comment: c.clone(),
        author: Some(SubscriberRef::from(&ann)),
        topic: TopicRef {
            id: item.id,
            title: item.title.clone(),
            url_id: item.url_id.clone(),
        },
    };
    let count = || async {
        store
            .topic(team, item.id)
            .await
            .unwrap()
            .unwrap()
            .comment_count
    };
    assert_eq!(
        store.topic_comment_view(team, root.id).await.unwrap(),
        Some(view(&root))
    );
    assert_eq!(
        store.topic_comment_view(other, root.id).await.unwrap(),
        None
    );

    // An edit of the text, as stored.
    let mut edited = root.clone();
    edited.edit_text("root, edited".into(), t(5));
    let text = edited.text.clone();
    let changed = store
        .edit_topic_comment(
            team,
            root.id,
            Box::new(move |v| {
                v.comment.edit_text(text, t(5));
                Ok(Vec::new())
            }),
        )
        .await
        .unwrap();
    assert_eq!(changed, Edited::Changed(view(&edited)));
    let gone = store
        .edit_topic_comment(other, root.id, Box::new(|_| panic!("not the team's")))
        .await
        .unwrap();
    assert_eq!(gone, Edited::Gone);

    // Answered: a tombstone, no longer counted, its replies in place; the events go with it.
    assert_eq!(count().await, 4);
    let e1 = event(team, EventKind::TopicCommentsDelete, t(6), 1);
    let sent = e1.clone();
    let removed = store
        .delete_topic_comment(team, root.id, t(6), Box::new(move |_| vec![sent]))
        .await
        .unwrap();
    assert_eq!(removed, Some(view(&edited)));
    assert_eq!(count().await, 3);
    let mut tombstone = edited.clone();
    tombstone.tombstone(t(6));
    assert_eq!(tombstone.text, TOMBSTONE_TEXT);
    assert_eq!(
        store.topic_comment(team, root.id).await.unwrap(),
        Some(tombstone.clone())
    );
    let threads = store
        .comment_threads(team, &thread_query(Some(item.id), ThreadScope::Public))
        .await
        .unwrap();
    assert_eq!(threads.total, 2);
    assert_eq!(threads.items[0].root, view(&tombstone));
    assert_eq!(threads.items[0].replies, vec![view(&answer), view(&deeper)]);
    // A tombstone is not deleted again and takes no replies.
    assert_eq!(
        store
            .delete_topic_comment(team, root.id, t(7), Box::new(|_| panic!("deleted")))
            .await
            .unwrap(),
        None
    );
    let late = topic_comment(&item, ann.id, Some(&root), "late", t(7));
    assert!(!store.insert_topic_comment(&late, &[]).await.unwrap());
    assert_eq!(store.topic_comment(team, late.id).await.unwrap(), None);
    assert_eq!(count().await, 3);

    // Unanswered: the row goes; the last reply under a tombstone takes the tombstone along.
    for (gone, left) in [(&deeper, 2), (&answer, 1)] {
        let removed = store
            .delete_topic_comment(team, gone.id, t(8), Box::new(|_| Vec::new()))
            .await
            .unwrap();
        assert_eq!(removed, Some(view(gone)));
        assert_eq!(count().await, left);
    }
    assert_eq!(store.topic_comment(team, root.id).await.unwrap(), None);
    let threads = store
        .comment_threads(team, &thread_query(Some(item.id), ThreadScope::Team))
        .await
        .unwrap();
    assert_eq!(threads.total, 1);
    assert_eq!(threads.items[0].root, view(&lone));
    // A reply to a comment that is gone is refused too.
    let orphan = topic_comment(&item, ann.id, Some(&answer), "orphan", t(9));
    assert!(!store.insert_topic_comment(&orphan, &[]).await.unwrap());
    assert_eq!(store.events(team).await.unwrap(), vec![stored(&e1)]);
    assert_eq!(count().await, 1);
}
