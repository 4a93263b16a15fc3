//! The tables as diesel sees them; written by hand to match `migrations/`
//! (`tests/schema.rs` compares it with what the migrations make on both engines: every table,
//! column, nullability and type family).

diesel::table! {
    teams (id) {
        id -> Text,
        name -> Text,
        subdomain -> Text,
        allow_anonymous_feedback -> Bool,
        public_board_moderation -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        portal_sign_in_url -> Nullable<Text>,
    }
}

diesel::table! {
    team_users (id) {
        id -> Text,
        team_id -> Text,
        email -> Text,
        name -> Text,
        role -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Text,
        team_id -> Text,
        user_id -> Text,
        name -> Nullable<Text>,
        role -> Text,
        read_only -> Bool,
        prefix -> Text,
        key_hash -> Text,
        created_at -> Timestamp,
        last_used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    subscribers (id) {
        id -> Text,
        team_id -> Text,
        name -> Text,
        email -> Nullable<Text>,
        source -> Text,
        meta -> Text,
        mmr -> Nullable<Double>,
        plan -> Nullable<Text>,
        role -> Nullable<Text>,
        team_attr -> Nullable<Text>,
        attr_created_at -> Nullable<Timestamp>,
        avatar_url -> Nullable<Text>,
        token_version -> BigInt,
        created_at -> Timestamp,
        last_updated -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    feedback_boards (id) {
        id -> Text,
        team_id -> Text,
        name -> Text,
        slug -> Text,
        description -> Text,
        position -> BigInt,
        is_public -> Bool,
        allow_public_submissions -> Bool,
        require_moderation -> Bool,
        color -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    feedback (id) {
        id -> Text,
        team_id -> Text,
        board_id -> Nullable<Text>,
        url_id -> Text,
        title -> Text,
        text -> Text,
        status -> Text,
        priority -> Text,
        kind -> Nullable<Text>,
        creator_id -> Text,
        meta -> Text,
        search_text -> Text,
        comment_count -> BigInt,
        published_at -> Nullable<Timestamp>,
        archived_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        last_modified_by_id -> Nullable<Text>,
        private_comment_count -> BigInt,
    }
}

// An item's vote count, with the item's columns its "top" order filters and sorts by (copied
// by triggers: migration 2026-12-06-000001_vote_counts).
diesel::table! {
    feedback_vote_counts (id) {
        id -> Text,
        team_id -> Text,
        board_id -> Nullable<Text>,
        published_at -> Nullable<Timestamp>,
        archived_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        vote_count -> BigInt,
    }
}

diesel::table! {
    feedback_votes (id) {
        id -> Text,
        team_id -> Text,
        feedback_id -> Text,
        subscriber_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    feedback_comments (id) {
        id -> Text,
        team_id -> Text,
        feedback_id -> Text,
        subscriber_id -> Text,
        text -> Text,
        is_private -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    feedback_follows (feedback_id, subscriber_id) {
        feedback_id -> Text,
        subscriber_id -> Text,
        team_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    roadmaps (id) {
        id -> Text,
        team_id -> Text,
        name -> Text,
        description -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        is_private -> Bool,
    }
}

diesel::table! {
    stages (id) {
        id -> Text,
        team_id -> Text,
        roadmap_id -> Text,
        name -> Text,
        position -> BigInt,
        is_private -> Bool,
        disable_moderation -> Bool,
        color -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    topics (id) {
        id -> Text,
        team_id -> Text,
        roadmap_id -> Text,
        stage_id -> Text,
        url_id -> Text,
        title -> Text,
        title_key -> Text,
        description -> Text,
        text -> Text,
        subscriber_id -> Text,
        meta -> Text,
        visits -> BigInt,
        vote_count -> BigInt,
        comment_count -> BigInt,
        published_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        root_comment_count -> BigInt,
    }
}

diesel::table! {
    topic_comments (id) {
        id -> Text,
        team_id -> Text,
        topic_id -> Text,
        creator_id -> Text,
        parent_id -> Nullable<Text>,
        root_id -> Text,
        text -> Text,
        source -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    topic_votes (id) {
        id -> Text,
        team_id -> Text,
        topic_id -> Text,
        creator_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    topic_follows (topic_id, subscriber_id) {
        topic_id -> Text,
        subscriber_id -> Text,
        team_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    topic_visits (topic_id, viewer) {
        topic_id -> Text,
        viewer -> Text,
        last_counted_at -> Timestamp,
    }
}

diesel::table! {
    outbox_events (seq) {
        seq -> BigInt,
        id -> Text,
        team_id -> Text,
        event -> Text,
        payload -> Text,
        occurred_at -> Timestamp,
        created_at -> Timestamp,
        dispatched_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        team_id -> Text,
        target_url -> Text,
        event -> Text,
        secret -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        team_id -> Text,
        webhook_id -> Text,
        event_id -> Text,
        event -> Text,
        target_url -> Text,
        status -> Text,
        attempts -> BigInt,
        next_attempt_at -> Nullable<Timestamp>,
        first_attempt_at -> Nullable<Timestamp>,
        last_attempt_at -> Nullable<Timestamp>,
        last_status_code -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        last_duration_ms -> Nullable<BigInt>,
        lease_owner -> Nullable<Text>,
        lease_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    settings (name) {
        name -> Text,
        value -> Text,
    }
}

diesel::table! {
    tags (id) {
        id -> Text,
        team_id -> Text,
        name -> Text,
        name_key -> Text,
        color -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    feedback_tags (feedback_id, tag_id) {
        feedback_id -> Text,
        tag_id -> Text,
        team_id -> Text,
    }
}

diesel::joinable!(team_users -> teams (team_id));
diesel::joinable!(api_keys -> team_users (user_id));
diesel::joinable!(subscribers -> teams (team_id));
diesel::joinable!(feedback_boards -> teams (team_id));
diesel::joinable!(feedback -> teams (team_id));
diesel::joinable!(feedback -> feedback_boards (board_id));
diesel::joinable!(feedback_votes -> feedback (feedback_id));
diesel::joinable!(feedback_comments -> feedback (feedback_id));
diesel::joinable!(feedback_follows -> feedback (feedback_id));
diesel::table! {
    notifications (id) {
        id -> Text,
        team_id -> Text,
        subscriber_id -> Text,
        kind -> Text,
        feedback_id -> Nullable<Text>,
        topic_id -> Nullable<Text>,
        comment_id -> Nullable<Text>,
        title -> Text,
        status -> Nullable<Text>,
        previous_status -> Nullable<Text>,
        actor_id -> Nullable<Text>,
        read_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::joinable!(roadmaps -> teams (team_id));
diesel::joinable!(stages -> roadmaps (roadmap_id));
diesel::joinable!(topics -> roadmaps (roadmap_id));
diesel::joinable!(topics -> stages (stage_id));
diesel::joinable!(topic_comments -> topics (topic_id));
diesel::joinable!(topic_votes -> topics (topic_id));
diesel::joinable!(topic_follows -> topics (topic_id));
diesel::joinable!(topic_visits -> topics (topic_id));
diesel::joinable!(outbox_events -> teams (team_id));
diesel::joinable!(webhooks -> teams (team_id));
diesel::joinable!(webhook_deliveries -> teams (team_id));
diesel::joinable!(tags -> teams (team_id));
diesel::joinable!(feedback_tags -> feedback (feedback_id));
diesel::joinable!(feedback_tags -> tags (tag_id));

diesel::allow_tables_to_appear_in_same_query!(
    teams,
    team_users,
    api_keys,
    subscribers,
    feedback_boards,
    feedback,
    feedback_vote_counts,
    feedback_votes,
    feedback_comments,
    feedback_follows,
    roadmaps,
    stages,
    topics,
    topic_comments,
    topic_votes,
    topic_follows,
    topic_visits,
    outbox_events,
    webhooks,
    webhook_deliveries,
    settings,
    notifications,
    tags,
    feedback_tags,
);

// Documents and their reactions (migration 2026-11-25-000001_documents).
diesel::table! {
    documents (id) {
        id -> Text,
        team_id -> Text,
        url_id -> Text,
        title -> Text,
        title_key -> Text,
        text -> Text,
        search_text -> Text,
        published_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    document_reactions (document_id, subscriber_id, emoji) {
        document_id -> Text,
        subscriber_id -> Text,
        emoji -> Text,
        team_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::joinable!(documents -> teams (team_id));
diesel::joinable!(document_reactions -> documents (document_id));
diesel::allow_tables_to_appear_in_same_query!(documents, document_reactions);
