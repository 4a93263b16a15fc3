//! Feedback comments and follows: pages, sorts and private comments filtered; following is
//! idempotent and creators and commenters follow. The same on every adapter.

use std::sync::Arc;

use sounding_domain::{
    event::EventKind,
    feedback_comment::{CommentSort, CommentView, Direction, FeedbackComment},
    ids::{FeedbackCommentId, FeedbackId},
    page::{PageRequest, Paged},
    ports::Store,
    subscriber::{Subscriber, SubscriberRef},
};
use uuid::Uuid;

use crate::fixtures::{
    at, comment, comment_query, empty_page, event, everything, feedback, read, stored,
    stored_feedback, stored_team, subscriber, t0,
};

pub async fn comments_are_paged_sorted_and_private_ones_filtered(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "talk000001", t0()),
    )
    .await;
    let elsewhere = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "talk000002", t0()),
    )
    .await;

    let t = |n: u32| at(&format!("2026-03-05T00:00:0{n}.00{n}Z"));
    let made = |id: u128, author: &Subscriber, private: bool, created: u32, updated: u32| {
        let mut c = comment(
            &item,
            author.id,
            &format!("comment {id}"),
            private,
            t(created),
        );
        c.id = FeedbackCommentId(Uuid::from_u128(id));
        c.updated_at = t(updated);
        c
    };
    // c_a and c_b were written at the same instant (the id decides); c_b and c_c were last
    // edited at the same instant.
    let c_a = made(1, &a, false, 1, 5);
    let c_b = made(9, &b, false, 1, 2);
    let c_c = made(5, &a, true, 2, 2);
    let c_d = made(3, &b, false, 3, 3);
    let c_e = made(7, &a, false, 4, 4);
    let mut appended = Vec::new();
    for (n, c) in [&c_d, &c_b, &c_e, &c_a, &c_c].into_iter().enumerate() {
        let e = event(
            team,
            EventKind::FeedbackCommentsCreate,
            c.created_at,
            n as i64,
        );
        assert!(store
            .insert_comment(c, std::slice::from_ref(&e))
            .await
            .unwrap());
        appended.push(stored(&e));
    }
    let noise = comment(&elsewhere, b.id, "not here", false, t(1));
    assert!(store.insert_comment(&noise, &[]).await.unwrap());

    let author_of = |c: &FeedbackComment| {
        Some(SubscriberRef::from(if c.subscriber_id == a.id {
            &a
        } else {
            &b
        }))
    };
    let views = |comments: &[&FeedbackComment]| -> Vec<CommentView> {
        comments
            .iter()
            .map(|c| CommentView {
                comment: (*c).clone(),
                author: author_of(c),
            })
            .collect()
    };
    let item_id = item.id;
    let list = |private: bool, sort: CommentSort, direction: Direction, page: PageRequest| {
        let store = store.clone();
        async move {
            let mut query = comment_query(private, sort, direction);
            query.page = page;
            store.comments(team, item_id, &query).await.unwrap()
        }
    };
    let all = everything();
    let paged =
        |items: Vec<CommentView>, total: i64, page: PageRequest| Paged { items, total, page };

    assert_eq!(
        list(false, CommentSort::CreatedAt, Direction::Asc, all).await,
        paged(views(&[&c_a, &c_b, &c_d, &c_e]), 4, all),
        "public comments, oldest first, the id breaking the tie"
    );
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, all).await,
        paged(views(&[&c_a, &c_b, &c_c, &c_d, &c_e]), 5, all),
        "private comments too when asked"
    );
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Desc, all).await,
        paged(views(&[&c_e, &c_d, &c_c, &c_b, &c_a]), 5, all),
        "descending reverses the tie too"
    );
    assert_eq!(
        list(true, CommentSort::UpdatedAt, Direction::Asc, all).await,
        paged(views(&[&c_c, &c_b, &c_d, &c_e, &c_a]), 5, all)
    );
    assert_eq!(
        list(false, CommentSort::UpdatedAt, Direction::Desc, all).await,
        paged(views(&[&c_a, &c_e, &c_d, &c_b]), 4, all)
    );

    let window = PageRequest {
        limit: 2,
        offset: 1,
    };
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, window).await,
        paged(views(&[&c_b, &c_c]), 5, window)
    );
    let tail = PageRequest {
        limit: 2,
        offset: 4,
    };
    assert_eq!(
        list(true, CommentSort::CreatedAt, Direction::Asc, tail).await,
        paged(views(&[&c_e]), 5, tail)
    );
    let past = PageRequest {
        limit: 10,
        offset: 10,
    };
    assert_eq!(
        list(false, CommentSort::CreatedAt, Direction::Asc, past).await,
        paged(vec![], 4, past),
        "past the end: no items, the total still counts"
    );

    let counted = read(&*store, &item).await;
    assert_eq!(
        counted.comment_count, 5,
        "private comments count on the item"
    );
    assert_eq!(read(&*store, &elsewhere).await.comment_count, 1);

    // Another team, or a missing item, has no comments; a comment on either is refused.
    let query = comment_query(true, CommentSort::CreatedAt, Direction::Asc);
    assert_eq!(
        store.comments(other, item.id, &query).await.unwrap(),
        empty_page(all)
    );
    assert_eq!(
        store
            .comments(team, FeedbackId::new(), &query)
            .await
            .unwrap(),
        empty_page(all)
    );
    let missing = feedback(team, None, creator.id, "missing001", t0());
    let e_missing = event(team, EventKind::FeedbackCommentsCreate, t0(), 90);
    assert!(!store
        .insert_comment(&comment(&missing, a.id, "lost", false, t0()), &[e_missing])
        .await
        .unwrap());
    let mut foreign = comment(&item, a.id, "wrong team", false, t0());
    foreign.team_id = other;
    let e_foreign = event(other, EventKind::FeedbackCommentsCreate, t0(), 91);
    assert!(!store.insert_comment(&foreign, &[e_foreign]).await.unwrap());
    assert_eq!(read(&*store, &item).await.comment_count, 5);
    assert_eq!(store.events(team).await.unwrap(), appended);
    assert_eq!(store.events(other).await.unwrap(), vec![]);
}

pub async fn following_is_idempotent_and_creators_and_commenters_follow(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let creator = subscriber(&*store, team, "creator@example.com").await;
    let a = subscriber(&*store, team, "a@example.com").await;
    let b = subscriber(&*store, team, "b@example.com").await;
    let created = at("2026-03-05T00:00:00.001Z");
    let item = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "flw0000001", created),
    )
    .await;
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id],
        "the creator follows"
    );

    let say = |who: &Subscriber, secs: i64| {
        comment(&item, who.id, "hi", false, created.plus_seconds(secs))
    };
    assert!(store.insert_comment(&say(&a, 60), &[]).await.unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "a commenter follows"
    );
    assert!(store.insert_comment(&say(&a, 120), &[]).await.unwrap());
    assert!(store
        .insert_comment(&say(&creator, 180), &[])
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id],
        "commenting again does not follow twice"
    );

    assert!(store
        .set_following(team, item.id, b.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert!(store
        .set_following(team, item.id, b.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id]
    );
    assert!(store
        .set_following(team, item.id, a.id, true, created.plus_seconds(3600))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, a.id, b.id],
        "following again keeps the first follow's place"
    );

    assert!(store
        .set_following(team, item.id, a.id, false, t0())
        .await
        .unwrap());
    assert!(store
        .set_following(team, item.id, a.id, false, t0())
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id]
    );
    assert!(store
        .set_following(team, item.id, a.id, true, created.plus_seconds(7200))
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![creator.id, b.id, a.id],
        "a new follow goes last"
    );
    assert!(store
        .set_following(team, item.id, creator.id, false, t0())
        .await
        .unwrap());
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![b.id, a.id],
        "the creator may stop following"
    );

    // Another team's item, or a missing one, cannot be followed.
    let outsider = subscriber(&*store, other, "outsider@example.com").await;
    assert!(!store
        .set_following(
            other,
            item.id,
            outsider.id,
            true,
            created.plus_seconds(3600)
        )
        .await
        .unwrap());
    assert!(!store
        .set_following(other, item.id, b.id, false, t0())
        .await
        .unwrap());
    assert!(!store
        .set_following(
            team,
            FeedbackId::new(),
            b.id,
            true,
            created.plus_seconds(3600)
        )
        .await
        .unwrap());
    assert_eq!(store.followers(other, item.id).await.unwrap(), vec![]);
    assert_eq!(
        store.followers(team, item.id).await.unwrap(),
        vec![b.id, a.id]
    );

    // Two commenters who start following at the same instant are ordered by id.
    let second = stored_feedback(
        &*store,
        feedback(team, None, creator.id, "flw0000002", created),
    )
    .await;
    let (low, high) = if a.id < b.id { (&a, &b) } else { (&b, &a) };
    let same = created.plus_seconds(30);
    for who in [high, low] {
        let c = comment(&second, who.id, "same time", false, same);
        assert!(store.insert_comment(&c, &[]).await.unwrap());
    }
    assert_eq!(
        store.followers(team, second.id).await.unwrap(),
        vec![creator.id, low.id, high.id]
    );
}
