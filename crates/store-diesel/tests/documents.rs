//! Documents on diesel: the list and a document's reads run a constant number of statements
//! whatever the page size (count, page, reaction counts, the viewer's reactions). Runs on
//! SQLite (a temporary file) and, when `SOUNDING_TEST_POSTGRES_URL` names a server whose user
//! may create databases, on a fresh PostgreSQL database too.

mod support;

use sounding_domain::{
    document::{Document, DocumentQuery, DocumentSort},
    feedback_comment::Direction,
    ids::DocumentId,
    page::PageRequest,
    ports::DocumentStore,
};
use sounding_tests::fixtures::{subscriber, t0};
use support::{
    counted::{postgres, sqlite},
    on_every_engine, statements_of, team, Env,
};

on_every_engine!(document_reads_run_a_constant_number_of_statements);

async fn document_reads_run_a_constant_number_of_statements(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let reader = subscriber(store, a, "reader@example.com").await.id;
    let mut first = None;
    for n in 0..30_i64 {
        let at = t0().plus_seconds(n);
        let doc = Document {
            id: DocumentId::new(),
            team_id: a,
            url_id: format!("doc{n:07}"),
            title: format!("Document {n}"),
            text: String::new(),
            published_at: Some(at),
            created_at: at,
            updated_at: at,
        };
        store.insert_document(&doc).await.unwrap();
        for emoji in ["👍", "🎉"] {
            store
                .set_document_reaction(a, doc.id, reader, emoji, true, at)
                .await
                .unwrap()
                .unwrap();
        }
        first.get_or_insert(doc.id);
    }
    let marker = a.to_string();
    for limit in [1, 10, 30] {
        for (viewer, expected) in [(None, 3), (Some(reader), 4)] {
            let query = DocumentQuery {
                published: Some(true),
                search: None,
                sort: DocumentSort::Title,
                direction: Direction::Asc,
                viewer,
                page: PageRequest { limit, offset: 0 },
            };
            let (listed, statements) =
                statements_of(&[&marker], store.list_documents(a, &query)).await;
            let listed = listed.unwrap();
            assert_eq!((listed.items.len() as i64, listed.total), (limit, 30));
            assert!(listed.items.iter().all(|v| v.reactions.len() == 2));
            assert!(listed
                .items
                .iter()
                .all(|v| v.my_reactions.len() == if viewer.is_some() { 2 } else { 0 }));
            assert_eq!(
                statements, expected,
                "count, page, reactions[, mine] (limit {limit})"
            );
        }
    }
    let (read, statements) =
        statements_of(&[&marker], store.document(a, first.unwrap(), Some(reader))).await;
    assert_eq!(read.unwrap().unwrap().my_reactions.len(), 2);
    assert_eq!(statements, 3, "row, reactions, mine");
}
