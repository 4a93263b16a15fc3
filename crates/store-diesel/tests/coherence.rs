//! The read cache on PostgreSQL, kept coherent across instances (`coherence`): two stores on
//! one database stand for two `sounding` instances, each with its own cache and link. A write
//! through one is seen by the very next read through the other, a deleted key fails at once,
//! and a broken link makes reads go to the database rather than serve old answers.

mod support;

use diesel::{Connection, PgConnection, RunQueryDsl};
use sounding_domain::{
    access::Role,
    api_key::{ApiKey, ApiKeyGrant},
    ports::{AccessStore, BoardStore, FeedbackStore, TeamStore},
};
use sounding_store_diesel::DieselStore;
use sounding_tests::fixtures::{self, stored_board, stored_team, subscriber, t0, TeamFixture};

/// Two instances on one fresh database, and a team made through the first.
async fn two_instances() -> Option<(DieselStore, DieselStore, TeamFixture, String)> {
    let url = support::postgres_database().await?;
    let first = DieselStore::connect(&url).unwrap();
    first.migrate().await.unwrap();
    let second = DieselStore::connect(&url).unwrap();
    let team = stored_team(&first, "coherent").await;
    Some((first, second, team, url))
}

/// Reads a key's grant three times, so that an instance has it remembered (the first read
/// finds the database just changed and keeps nothing); returns the last answer.
async fn remembered(store: &DieselStore, key: &ApiKey) -> Option<ApiKeyGrant> {
    let mut last = None;
    for _ in 0..3 {
        last = store.api_key_by_hash(&key.key_hash).await.unwrap();
    }
    last
}

/// Renames the key by hand on a connection of its own: a change Sounding does not announce.
fn rename_outside(url: &str, key: &ApiKey, name: &str) {
    outside(
        url,
        &format!(
            "UPDATE api_keys SET name = '{name}' WHERE id = '{}'",
            key.id
        ),
    );
}

fn name_of(grant: &Option<ApiKeyGrant>) -> Option<&str> {
    grant.as_ref().and_then(|g| g.key.name.as_deref())
}

/// Runs `sql` on a connection of its own: a change Sounding does not announce.
fn outside(url: &str, sql: &str) {
    diesel::sql_query(sql)
        .execute(&mut PgConnection::establish(url).unwrap())
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_through_one_instance_is_read_through_the_other_at_once() {
    let Some((first, second, team, _url)) = two_instances().await else {
        return;
    };
    for round in 0..25 {
        let (key, _secret) = ApiKey::new(
            team.team.id,
            team.owner.id,
            Role::Admin,
            false,
            Some(format!("key {round}")),
            t0(),
        );
        // Unknown, and remembered as unknown by the second instance.
        assert!(remembered(&second, &key).await.is_none());

        first.insert_api_key(&key).await.unwrap();
        let found = second.api_key_by_hash(&key.key_hash).await.unwrap();
        assert_eq!(name_of(&found), Some(format!("key {round}").as_str()));

        assert!(remembered(&second, &key).await.is_some());
        assert!(first.delete_api_key(key.id).await.unwrap());
        assert!(
            second
                .api_key_by_hash(&key.key_hash)
                .await
                .unwrap()
                .is_none(),
            "round {round}: a deleted key still answers on the other instance"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn answers_are_remembered_until_a_change_is_announced() {
    let Some((_first, second, team, url)) = two_instances().await else {
        return;
    };
    let key = &team.key;
    assert_eq!(name_of(&remembered(&second, key).await), None);

    // A change by a connection that announces nothing is not seen: the answer is remembered.
    rename_outside(&url, key, "renamed");
    let grant = second.api_key_by_hash(&key.key_hash).await.unwrap();
    assert_eq!(name_of(&grant), None, "served from the cache");

    // Announced by hand, as docs/storage.md tells an operator to after editing the database.
    outside(&url, "NOTIFY sounding_changes");
    let grant = second.api_key_by_hash(&key.key_hash).await.unwrap();
    assert_eq!(name_of(&grant), Some("renamed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_broken_link_reads_the_database_until_it_is_back() {
    let Some((first, second, team, url)) = two_instances().await else {
        return;
    };
    let key = &team.key;
    assert_eq!(name_of(&remembered(&second, key).await), None);
    rename_outside(&url, key, "unannounced");
    // Both instances' links die (a network cut, a restart of their backends): notifications
    // may have been missed, so nothing remembered may be served.
    outside(
        &url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'sounding coherence' AND datname = current_database()",
    );
    for _ in 0..3 {
        let grant = second.api_key_by_hash(&key.key_hash).await.unwrap();
        assert_eq!(name_of(&grant), Some("unannounced"));
    }
    // And once the links are back, the cache is coherent again.
    assert!(remembered(&second, key).await.is_some());
    assert!(first.delete_api_key(key.id).await.unwrap());
    assert!(second
        .api_key_by_hash(&key.key_hash)
        .await
        .unwrap()
        .is_none());
}

/// A team and a board are remembered too: a change of either through one instance, and an item
/// that changes the board's count, is read through the other at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_team_and_a_board_changed_through_one_instance_are_read_through_the_other_at_once() {
    let Some((first, second, team, _url)) = two_instances().await else {
        return;
    };
    let id = team.team.id;
    let board = stored_board(&first, id, "ideas", 1).await;
    let creator = subscriber(&first, id, "creator@example.com").await.id;
    for round in 0..10 {
        // Remembered by the second instance (the first read finds the database just changed).
        for _ in 0..3 {
            second.team(id).await.unwrap().unwrap();
            second.board(id, board.id).await.unwrap().unwrap();
        }
        let name = format!("Team {round}");
        let renamed = name.clone();
        first
            .edit_team(
                id,
                Box::new(move |team| {
                    team.name = renamed;
                    Ok(Vec::new())
                }),
            )
            .await
            .unwrap();
        assert_eq!(second.team(id).await.unwrap().unwrap().name, name);

        let slug = format!("ideas-{round}");
        let reslugged = slug.clone();
        first
            .edit_board(
                id,
                board.id,
                Box::new(move |view| {
                    view.board.slug = reslugged;
                    Ok(Vec::new())
                }),
            )
            .await
            .unwrap();
        assert_eq!(
            second
                .board(id, board.id)
                .await
                .unwrap()
                .unwrap()
                .board
                .slug,
            slug
        );

        let item = fixtures::feedback(id, Some(board.id), creator, &slug, t0());
        first.insert_feedback(&item, &[], &[]).await.unwrap();
        assert_eq!(
            second
                .board(id, board.id)
                .await
                .unwrap()
                .unwrap()
                .feedback_count,
            round + 1,
            "round {round}: the other instance counts the new item"
        );
    }
}
