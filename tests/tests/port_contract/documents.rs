//! Documents and their reactions: round trips, url ids unique per team, updates that leave the
//! publish state alone, publish keeping its first time, reactions one per emoji per subscriber
//! (also under concurrency) and only on published documents, deletes taking reactions along,
//! and lists that filter, search, sort, page and fill the viewer's reactions.

use std::sync::Arc;

use futures_util::future::join_all;
use sounding_domain::{
    document::{
        Document, DocumentPatch, DocumentQuery, DocumentSort, DocumentView, ReactionCounts,
        ReactionState,
    },
    feedback_comment::Direction,
    ids::{DocumentId, SubscriberId, TeamId},
    page::PageRequest,
    ports::{Conflict, Store},
    timestamp::Timestamp,
};

use crate::{
    fixtures::conflict,
    fixtures::{at, everything, stored_team, subscriber, t0},
};

/// A document of `team`, published at `published_at` when given, not yet stored.
fn document(
    team: TeamId,
    title: &str,
    url_id: &str,
    created_at: Timestamp,
    published_at: Option<Timestamp>,
) -> Document {
    Document {
        id: DocumentId::new(),
        team_id: team,
        url_id: url_id.into(),
        title: title.into(),
        text: format!("About {title}"),
        published_at,
        created_at,
        updated_at: created_at,
    }
}

async fn stored(store: &dyn Store, document: Document) -> Document {
    store
        .insert_document(&document)
        .await
        .expect("insert document");
    document
}

fn bare(document: &Document) -> DocumentView {
    DocumentView {
        document: document.clone(),
        reactions: ReactionCounts::new(),
        my_reactions: Vec::new(),
    }
}

fn counts(pairs: &[(&str, i64)]) -> ReactionCounts {
    pairs.iter().map(|(e, n)| ((*e).to_owned(), *n)).collect()
}

fn query(sort: DocumentSort, direction: Direction) -> DocumentQuery {
    DocumentQuery {
        published: None,
        search: None,
        sort,
        direction,
        viewer: None,
        page: everything(),
    }
}

async fn titles(store: &dyn Store, team: TeamId, query: &DocumentQuery) -> Vec<String> {
    store
        .list_documents(team, query)
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|v| v.document.title)
        .collect()
}

async fn react(
    store: &dyn Store,
    doc: &Document,
    who: SubscriberId,
    emoji: &str,
    on: bool,
) -> Option<ReactionState> {
    store
        .set_document_reaction(doc.team_id, doc.id, who, emoji, on, t0())
        .await
        .unwrap()
}

pub async fn documents_round_trip_and_url_ids_are_unique_per_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let draft = stored(&*store, document(team, "Draft", "aaaaaaaaaa", t0(), None)).await;
    let live = document(
        team,
        "Live",
        "bbbbbbbbbb",
        t0(),
        Some(at("2026-03-05T00:00:00.001Z")),
    );
    let live = stored(&*store, live).await;
    assert_eq!(
        store.document(team, draft.id, None).await.unwrap(),
        Some(bare(&draft))
    );
    assert_eq!(
        store.document(team, live.id, None).await.unwrap(),
        Some(bare(&live))
    );
    assert_eq!(store.document(other, live.id, None).await.unwrap(), None);

    let clash = document(team, "Clash", "aaaaaaaaaa", t0(), None);
    assert_eq!(
        store.insert_document(&clash).await,
        Err(conflict(Conflict::DocumentUrlId))
    );
    assert_eq!(store.document(team, clash.id, None).await.unwrap(), None);
    let elsewhere = stored(
        &*store,
        document(other, "Same id", "aaaaaaaaaa", t0(), None),
    )
    .await;
    assert_eq!(
        store.document(other, elsewhere.id, None).await.unwrap(),
        Some(bare(&elsewhere))
    );
}

pub async fn document_updates_patch_title_and_text_but_not_the_publish_state(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let doc = stored(
        &*store,
        document(team, "Old", "aaaaaaaaaa", t0(), Some(t0())),
    )
    .await;
    let t1 = at("2026-03-06T00:00:00.500Z");
    let title = DocumentPatch {
        title: Some("New".into()),
        text: None,
    };
    let updated = store
        .update_document(team, doc.id, &title, t1)
        .await
        .unwrap()
        .unwrap();
    let expected = Document {
        title: "New".into(),
        updated_at: t1,
        ..doc.clone()
    };
    assert_eq!(updated, bare(&expected));
    assert_eq!(
        store.document(team, doc.id, None).await.unwrap(),
        Some(bare(&expected))
    );
    // Patches of different fields, one after the other, both stay.
    let text = DocumentPatch {
        title: None,
        text: Some("Fresh text".into()),
    };
    let t2 = at("2026-03-07T00:00:00.000Z");
    let both = store
        .update_document(team, doc.id, &text, t2)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (both.document.title.as_str(), both.document.text.as_str()),
        ("New", "Fresh text")
    );
    assert_eq!(both.document.published_at, Some(t0()));
    // The new title and text are what lists search and sort on.
    let query = DocumentQuery {
        search: Some("fresh".into()),
        ..query(DocumentSort::Title, Direction::Asc)
    };
    assert_eq!(titles(&*store, team, &query).await, ["New"]);

    assert_eq!(
        store
            .update_document(other, doc.id, &title, t2)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .update_document(team, DocumentId::new(), &title, t2)
            .await
            .unwrap(),
        None
    );
}

pub async fn publishing_keeps_the_first_time_and_unpublishing_clears_it(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let doc = stored(&*store, document(team, "Doc", "aaaaaaaaaa", t0(), None)).await;
    let (t1, t2, t3) = (
        at("2026-04-01T00:00:00.001Z"),
        at("2026-04-02T00:00:00.002Z"),
        at("2026-04-03T00:00:00.003Z"),
    );
    let first = store
        .set_document_published(team, doc.id, true, t1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (first.document.published_at, first.document.updated_at),
        (Some(t1), t1)
    );
    let again = store
        .set_document_published(team, doc.id, true, t2)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again, first, "a repeated publish changes nothing");
    assert_eq!(
        store
            .set_document_published(other, doc.id, false, t2)
            .await
            .unwrap(),
        None
    );
    let hidden = store
        .set_document_published(team, doc.id, false, t2)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (hidden.document.published_at, hidden.document.updated_at),
        (None, t2)
    );
    let still = store
        .set_document_published(team, doc.id, false, t3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(still, hidden);
    assert_eq!(
        store
            .set_document_published(team, DocumentId::new(), true, t3)
            .await
            .unwrap(),
        None
    );
}

pub async fn document_reactions_are_one_per_emoji_per_subscriber_on_published_documents(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let alice = subscriber(&*store, team, "alice@example.com").await.id;
    let bob = subscriber(&*store, team, "bob@example.com").await.id;
    let doc = stored(
        &*store,
        document(team, "Doc", "aaaaaaaaaa", t0(), Some(t0())),
    )
    .await;
    let draft = stored(&*store, document(team, "Draft", "bbbbbbbbbb", t0(), None)).await;

    let first = react(&*store, &doc, alice, "👍", true).await.unwrap();
    assert_eq!(first.reactions, counts(&[("👍", 1)]));
    assert_eq!(first.mine, vec!["👍".to_owned()]);
    assert_eq!(
        react(&*store, &doc, alice, "👍", true).await.unwrap(),
        first
    );
    react(&*store, &doc, alice, ":a:", true).await.unwrap();
    let bobs = react(&*store, &doc, bob, "👍", true).await.unwrap();
    assert_eq!(bobs.reactions, counts(&[("👍", 2), (":a:", 1)]));
    assert_eq!(bobs.mine, vec!["👍".to_owned()]);
    let alices = store
        .document(team, doc.id, Some(alice))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alices.my_reactions, vec![":a:".to_owned(), "👍".to_owned()]);
    assert_eq!(alices.reactions, bobs.reactions);

    // Unpublished, another team's, or missing: nothing written.
    assert_eq!(react(&*store, &draft, alice, "👍", true).await, None);
    assert_eq!(react(&*store, &draft, alice, "👍", false).await, None);
    let foreign = Document {
        team_id: other,
        ..doc.clone()
    };
    assert_eq!(react(&*store, &foreign, alice, "🎉", true).await, None);
    let missing = Document {
        id: DocumentId::new(),
        ..doc.clone()
    };
    assert_eq!(react(&*store, &missing, alice, "🎉", true).await, None);
    assert_eq!(
        store.document(team, draft.id, None).await.unwrap(),
        Some(bare(&draft))
    );

    let removed = react(&*store, &doc, alice, "👍", false).await.unwrap();
    assert_eq!(removed.reactions, counts(&[("👍", 1), (":a:", 1)]));
    assert_eq!(removed.mine, vec![":a:".to_owned()]);
    assert_eq!(
        react(&*store, &doc, alice, "👍", false).await.unwrap(),
        removed
    );
}

pub async fn concurrent_identical_reactions_count_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let alice = subscriber(&*store, team, "alice@example.com").await.id;
    let doc = stored(
        &*store,
        document(team, "Doc", "aaaaaaaaaa", t0(), Some(t0())),
    )
    .await;
    let tries = (0..8).map(|_| {
        let (store, doc) = (store.clone(), doc.clone());
        async move { react(&*store, &doc, alice, "👍", true).await }
    });
    for outcome in join_all(tries).await {
        assert_eq!(outcome.unwrap().reactions, counts(&[("👍", 1)]));
    }
}

pub async fn deleting_a_document_removes_its_reactions(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let alice = subscriber(&*store, team, "alice@example.com").await.id;
    let doc = stored(
        &*store,
        document(team, "Doc", "aaaaaaaaaa", t0(), Some(t0())),
    )
    .await;
    let keep = stored(
        &*store,
        document(team, "Keep", "bbbbbbbbbb", t0(), Some(t0())),
    )
    .await;
    react(&*store, &doc, alice, "👍", true).await.unwrap();
    react(&*store, &keep, alice, "👍", true).await.unwrap();

    assert!(!store.delete_document(other, doc.id).await.unwrap());
    assert!(store.document(team, doc.id, None).await.unwrap().is_some());
    assert!(store.delete_document(team, doc.id).await.unwrap());
    assert!(!store.delete_document(team, doc.id).await.unwrap());
    assert_eq!(store.document(team, doc.id, None).await.unwrap(), None);
    // A document later stored under the same id starts without reactions.
    let reborn = stored(&*store, doc.clone()).await;
    assert_eq!(
        store.document(team, reborn.id, Some(alice)).await.unwrap(),
        Some(bare(&reborn))
    );
    let kept = store
        .document(team, keep.id, Some(alice))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.reactions, counts(&[("👍", 1)]));
}

pub async fn document_lists_filter_search_sort_page_and_fill_the_viewer_s_reactions(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let alice = subscriber(&*store, team, "alice@example.com").await.id;
    let bob = subscriber(&*store, team, "bob@example.com").await.id;
    let t = |s: &str| at(&format!("2026-05-01T00:00:{s}Z"));
    let mut banana = document(team, "banana", "aaaaaaaaaa", t("01.000"), Some(t("05.000")));
    banana.text = "50% off_sale".into();
    let banana = stored(&*store, banana).await;
    let apple = stored(
        &*store,
        document(team, "Apple", "bbbbbbbbbb", t("02.000"), Some(t("04.000"))),
    )
    .await;
    let mut cherry = document(team, "cherry", "cccccccccc", t("03.000"), None);
    cherry.updated_at = t("09.000");
    stored(&*store, cherry).await;
    stored(
        &*store,
        document(other, "Foreign", "dddddddddd", t("04.000"), Some(t0())),
    )
    .await;
    react(&*store, &apple, alice, "👍", true).await.unwrap();
    react(&*store, &apple, bob, "👍", true).await.unwrap();
    react(&*store, &banana, bob, "🎉", true).await.unwrap();

    let by = |sort, direction| query(sort, direction);
    use Direction::{Asc, Desc};
    use DocumentSort::{CreatedAt, PublishedAt, Title, UpdatedAt};
    assert_eq!(
        titles(&*store, team, &by(CreatedAt, Desc)).await,
        ["cherry", "Apple", "banana"]
    );
    assert_eq!(
        titles(&*store, team, &by(Title, Asc)).await,
        ["Apple", "banana", "cherry"]
    );
    assert_eq!(
        titles(&*store, team, &by(UpdatedAt, Desc)).await,
        ["cherry", "Apple", "banana"]
    );
    // Unpublished documents count as older than any published one, on every engine.
    assert_eq!(
        titles(&*store, team, &by(PublishedAt, Desc)).await,
        ["banana", "Apple", "cherry"]
    );
    assert_eq!(
        titles(&*store, team, &by(PublishedAt, Asc)).await,
        ["cherry", "Apple", "banana"]
    );

    let published = DocumentQuery {
        published: Some(true),
        ..by(PublishedAt, Desc)
    };
    assert_eq!(titles(&*store, team, &published).await, ["banana", "Apple"]);
    let drafts = DocumentQuery {
        published: Some(false),
        ..by(PublishedAt, Desc)
    };
    assert_eq!(titles(&*store, team, &drafts).await, ["cherry"]);

    let search = |term: &str| DocumentQuery {
        search: Some(term.into()),
        ..by(CreatedAt, Desc)
    };
    assert_eq!(titles(&*store, team, &search("apple")).await, ["Apple"]);
    assert_eq!(
        titles(&*store, team, &search("about")).await,
        ["cherry", "Apple"]
    );
    assert_eq!(titles(&*store, team, &search("0%")).await, ["banana"]);
    assert_eq!(titles(&*store, team, &search("f_s")).await, ["banana"]);
    assert!(titles(&*store, team, &search("%%")).await.is_empty());
    assert!(titles(&*store, team, &search("o_f")).await.is_empty());

    let page = DocumentQuery {
        page: PageRequest::new(Some(1), Some(1), 20).unwrap(),
        viewer: Some(alice),
        ..published.clone()
    };
    let listed = store.list_documents(team, &page).await.unwrap();
    assert_eq!(listed.total, 2);
    assert_eq!(
        listed.items,
        vec![DocumentView {
            document: apple.clone(),
            reactions: counts(&[("👍", 2)]),
            my_reactions: vec!["👍".to_owned()],
        }]
    );
    let for_bob = DocumentQuery {
        viewer: Some(bob),
        ..published.clone()
    };
    let listed = store.list_documents(team, &for_bob).await.unwrap();
    let mine: Vec<Vec<String>> = listed
        .items
        .iter()
        .map(|v| v.my_reactions.clone())
        .collect();
    assert_eq!(mine, vec![vec!["🎉".to_owned()], vec!["👍".to_owned()]]);
    let anonymous = store.list_documents(team, &published).await.unwrap();
    assert!(anonymous.items.iter().all(|v| v.my_reactions.is_empty()));
    assert_eq!(anonymous.items[0].reactions, counts(&[("🎉", 1)]));
    let past = DocumentQuery {
        page: PageRequest::new(None, Some(5), 20).unwrap(),
        ..published
    };
    let listed = store.list_documents(team, &past).await.unwrap();
    assert_eq!((listed.total, listed.items.len()), (2, 0));
}
