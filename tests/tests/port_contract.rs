//! The port-contract suite: the storage story, one file per resource under `port_contract/`
//! (`teams`, `subscribers`, `boards`, `feedback`, `votes`, `comments` with follows, `outbox`
//! with settings, `roadmaps` with stages, `topics`, `webhooks`, `notifications`, `documents`,
//! `tags` with merges and counts, `access` for team administration, `edits` for atomic edits,
//! `moderation` for comment edits and removals, `session` for the authenticated subscriber; `sounding_tests::fixtures` builds their values), run against
//! every adapter — the in-memory store, diesel on SQLite and diesel on PostgreSQL — so all three
//! keep the same promises. This is the storage test suite: `crates/store-diesel/tests` keeps
//! only what is diesel's own (statement counts, the writer, connections, migrations).
//! PostgreSQL runs when `SOUNDING_TEST_POSTGRES_URL` names a server (and must under
//! `CI=true`); otherwise it is skipped loudly.

#[path = "port_contract/access.rs"]
mod access;
#[path = "port_contract/boards.rs"]
mod boards;
#[path = "port_contract/comments.rs"]
mod comments;
#[path = "port_contract/documents.rs"]
mod documents;
#[path = "port_contract/edits.rs"]
mod edits;
#[path = "port_contract/feedback.rs"]
mod feedback;
#[path = "port_contract/moderation.rs"]
mod moderation;
#[path = "port_contract/notifications.rs"]
mod notifications;
#[path = "port_contract/outbox.rs"]
mod outbox;
#[path = "port_contract/roadmaps.rs"]
mod roadmaps;
#[path = "port_contract/session.rs"]
mod session;
#[path = "port_contract/subscribers.rs"]
mod subscribers;
#[path = "port_contract/tags.rs"]
mod tags;
#[path = "port_contract/teams.rs"]
mod teams;
#[path = "port_contract/topics.rs"]
mod topics;
#[path = "port_contract/votes.rs"]
mod votes;
#[path = "port_contract/webhooks.rs"]
mod webhooks;

use std::sync::Arc;

use sounding_domain::ports::Store;
use sounding_store_diesel::{DieselStore, Engine};
use sounding_store_memory::MemoryStore;
// The storage tests of `sounding-store-diesel` build their values with the same fixtures.
use sounding_tests::{fixtures, pg};
use tempfile::TempDir;

/// A store under test, and whatever must live as long as it (the SQLite file's directory).
struct Backend {
    store: Arc<dyn Store>,
    _dir: Option<TempDir>,
}

async fn memory() -> Option<Backend> {
    Some(Backend {
        store: Arc::new(MemoryStore::new()),
        _dir: None,
    })
}

/// A migrated store on a new SQLite file in a directory that does not exist yet (so `connect`
/// must create it).
async fn sqlite() -> Option<Backend> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = format!("sqlite://{}", dir.path().join("data/contract.db").display());
    let store = migrated(&url, Engine::Sqlite).await;
    Some(Backend {
        store: Arc::new(store),
        _dir: Some(dir),
    })
}

/// A migrated store on a new PostgreSQL database, or `None` (after a loud notice) when no
/// server is configured.
async fn postgres() -> Option<Backend> {
    let admin = pg::require_postgres()?;
    let url = tokio::task::spawn_blocking(move || pg::fresh_database(&admin))
        .await
        .expect("create database");
    Some(Backend {
        store: Arc::new(migrated(&url, Engine::Postgres).await),
        _dir: None,
    })
}

async fn migrated(url: &str, engine: Engine) -> DieselStore {
    let store = DieselStore::connect(url).unwrap_or_else(|e| panic!("connect: {e}"));
    assert_eq!(store.engine(), engine);
    let applied = store
        .migrate()
        .await
        .unwrap_or_else(|e| panic!("migrate: {e}"));
    assert!(!applied.is_empty(), "a fresh database gets every migration");
    assert_eq!(
        store.migrate().await.expect("second migrate"),
        Vec::<String>::new(),
        "migrations apply once"
    );
    store
}

/// One `#[tokio::test]` per backend for each check, named `module: [check, …]`.
macro_rules! port_contract {
    ($($module:ident: [$($check:ident),* $(,)?]),* $(,)?) => {
        port_contract!(@backend memory; $($($module::$check),*),*);
        port_contract!(@backend sqlite; $($($module::$check),*),*);
        port_contract!(@backend postgres; $($($module::$check),*),*);
    };
    (@backend $backend:ident; $($module:ident::$check:ident),*) => {
        mod $backend {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    if let Some(backend) = super::$backend().await {
                        super::$module::$check(backend.store.clone()).await;
                    }
                }
            )*
        }
    };
}

port_contract!(
    teams: [
        a_team_is_created_with_its_owner_and_key,
        a_taken_subdomain_is_a_conflict_and_writes_nothing,
        team_settings_are_updated_in_place,
        api_keys_are_found_by_hash_until_deleted,
        timestamps_and_meta_round_trip_exactly,
    ],
    subscribers: [
        identify_creates_then_merges,
        concurrent_identify_of_one_email_creates_one_subscriber,
        revoking_tokens_bumps_the_version_within_the_team,
    ],
    boards: [
        boards_are_ordered_and_filtered,
        board_slugs_are_unique_per_team,
        boards_are_deleted_only_by_their_team,
        board_feedback_count_and_delete_refusal,
    ],
    outbox: [
        the_outbox_keeps_each_team_s_events_in_append_order,
        events_are_appended_with_the_writes,
        settings_keep_the_first_value_even_under_concurrency,
    ],
    feedback: [
        feedback_round_trips_with_board_creator_and_counts,
        a_taken_url_id_is_a_conflict_and_writes_nothing,
        updates_replace_fields_and_append_events_only_when_found,
        delete_removes_comments_votes_and_follows,
        lists_filter_by_scope_status_board_and_search,
        lists_sort_newest_top_and_trending,
    ],
    votes: [
        votes_are_one_per_subscriber_and_counted,
        concurrent_votes_are_all_counted,
        concurrent_repeated_votes_count_once,
        retracting_is_idempotent,
    ],
    comments: [
        comments_are_paged_sorted_and_private_ones_filtered,
        following_is_idempotent_and_creators_and_commenters_follow,
    ],
    edits: [
        concurrent_feedback_edits_keep_every_change,
        concurrent_identical_changes_write_one_event_and_notify_once,
        an_edit_that_changes_nothing_refuses_or_finds_nothing_writes_nothing,
        concurrent_board_edits_keep_every_change,
        concurrent_team_roadmap_stage_and_tag_edits_keep_every_change,
        concurrent_topic_edits_keep_every_change,
    ],
    roadmaps: [
        roadmaps_are_listed_oldest_first_and_updated_within_their_team,
        stage_orders_stay_gapless_through_inserts_moves_and_deletes,
        concurrent_stage_writes_keep_orders_distinct_and_gapless,
        stages_count_their_published_topics,
        stage_delete_is_refused_while_it_holds_topics_unless_forced,
        roadmap_delete_is_refused_while_it_holds_topics_unless_forced,
    ],
    topics: [
        topics_round_trip_with_stage_creator_and_counts,
        a_taken_topic_url_id_is_a_conflict_and_writes_nothing,
        topic_updates_keep_counts_and_visits,
        topic_delete_removes_comments_votes_follows_and_visits,
        topic_lists_filter_sort_and_page,
        topic_visits_count_once_per_viewer_per_window,
        concurrent_topic_visits_count_each_viewer_once,
        topic_votes_are_one_per_subscriber_and_counted,
        concurrent_topic_votes_are_all_counted,
        retracting_a_topic_vote_is_idempotent,
        comment_threads_hold_every_reply_under_their_root,
        public_threads_hide_unpublished_and_private_stage_topics,
        topic_following_is_idempotent_and_creators_and_commenters_follow,
        topic_events_are_appended_with_the_writes,
    ],
    webhooks: [
        webhooks_are_listed_oldest_first_and_found_within_their_team,
        subscribing_the_same_target_and_event_again_returns_the_first_subscription,
        concurrent_identical_subscribes_make_one_subscription,
        fan_out_makes_one_delivery_per_matching_subscription_once,
        an_event_nobody_wants_when_written_is_never_fanned_out_and_goes_with_retention,
        leases_carry_body_and_secret_and_exclude_others_until_they_expire,
        leases_take_the_earliest_due_first_up_to_the_limit,
        attempts_move_deliveries_through_retry_delivered_and_failed,
        gone_removes_the_subscription_and_fails_its_other_deliveries,
        deleting_a_subscription_fails_its_pending_deliveries,
        releasing_leases_makes_deliveries_due_for_anyone,
        redelivery_resets_a_delivery_of_the_team,
        concurrent_leasing_delivers_each_delivery_exactly_once,
        deliveries_are_filtered_and_paged_newest_first,
        pruning_deletes_only_finished_history_older_than_the_cutoff,
        pruning_takes_at_most_the_limit_of_each_kind_oldest_first,
        concurrent_prunes_delete_each_row_once,
    ],
    notifications: [
        feedback_followers_but_the_actor_are_notified_with_the_write,
        topic_followers_but_the_actor_are_notified,
        notification_pages_are_newest_first_filtered_and_counted,
        marking_read_touches_only_the_subscriber_s_unread_ones,
    ],
    documents: [
        documents_round_trip_and_url_ids_are_unique_per_team,
        document_updates_patch_title_and_text_but_not_the_publish_state,
        publishing_keeps_the_first_time_and_unpublishing_clears_it,
        document_reactions_are_one_per_emoji_per_subscriber_on_published_documents,
        concurrent_identical_reactions_count_once,
        deleting_a_document_removes_its_reactions,
        document_lists_filter_search_sort_page_and_fill_the_viewer_s_reactions,
    ],
    tags: [
        tag_names_are_unique_per_team_ignoring_case,
        retagging_replaces_tags_with_the_fields_and_events,
        merging_moves_votes_once_comments_and_follows_and_recounts,
        merge_refuses_missing_or_archived_items_and_writes_nothing,
        counts_are_per_status_with_archived_apart,
    ],
    moderation: [
        feedback_comments_are_edited_and_removed_with_their_count,
        topic_comments_become_tombstones_while_answered,
    ],
    access: [
        users_are_added_once_and_the_last_owner_stays,
        concurrent_owner_demotions_keep_one_owner,
        deleting_a_user_removes_their_keys,
        team_keys_are_listed_deleted_within_their_team_and_touched_once_a_minute,
        subscriber_lists_search_sort_and_page,
        subscriber_updates_merge_and_erase_hides_them,
    ],
    session: [a_session_is_the_subscriber_and_whether_a_team_user_has_its_email],
);
