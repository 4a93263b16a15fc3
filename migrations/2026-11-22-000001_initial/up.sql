-- Sounding's first schema, for both engines: the column types that differ are spelled on
-- lines marked for one engine (../README.md). Ids are hyphenated UUID text; TIMESTAMP columns
-- hold UTC.

CREATE TABLE teams (
    id                       TEXT PRIMARY KEY NOT NULL,
    name                     TEXT NOT NULL,
    subdomain                TEXT NOT NULL,
    allow_anonymous_feedback BOOLEAN NOT NULL DEFAULT FALSE,
    public_board_moderation  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at               TIMESTAMP NOT NULL,
    updated_at               TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX teams_subdomain_key ON teams (subdomain);

CREATE TABLE team_users (
    id         TEXT PRIMARY KEY NOT NULL,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    name       TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX team_users_team_id_email_key ON team_users (team_id, email);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY NOT NULL,
    team_id      TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL REFERENCES team_users (id) ON DELETE CASCADE,
    name         TEXT,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    read_only    BOOLEAN NOT NULL DEFAULT FALSE,
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP
);
CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash);
CREATE INDEX api_keys_team_id_idx ON api_keys (team_id);
CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);

CREATE TABLE subscribers (
    id              TEXT PRIMARY KEY NOT NULL,
    team_id         TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    -- NULL only for an anonymous topic creator; NULLs never collide in the unique index.
    email           TEXT,
    source          TEXT NOT NULL,
    meta            TEXT NOT NULL DEFAULT '{}',
    -- Typed copies of meta keys (decisions §2), for filtering and sorting.
    mmr             REAL,  -- sqlite only
    mmr             DOUBLE PRECISION,  -- postgres only
    plan            TEXT,
    role            TEXT,
    team_attr       TEXT,
    attr_created_at TIMESTAMP,
    avatar_url      TEXT,
    token_version   BIGINT NOT NULL DEFAULT 0,
    created_at      TIMESTAMP NOT NULL,
    last_updated    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX subscribers_team_id_email_key ON subscribers (team_id, email);

CREATE TABLE feedback_boards (
    id                       TEXT PRIMARY KEY NOT NULL,
    team_id                  TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name                     TEXT NOT NULL,
    slug                     TEXT NOT NULL,
    description              TEXT NOT NULL DEFAULT '',
    position                 BIGINT NOT NULL,
    is_public                BOOLEAN NOT NULL DEFAULT TRUE,
    allow_public_submissions BOOLEAN NOT NULL DEFAULT TRUE,
    require_moderation       BOOLEAN NOT NULL DEFAULT FALSE,
    color                    TEXT,
    created_at               TIMESTAMP NOT NULL,
    updated_at               TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX feedback_boards_team_id_slug_key ON feedback_boards (team_id, slug);
CREATE INDEX feedback_boards_team_id_position_idx ON feedback_boards (team_id, position);

-- The transactional outbox. `seq` gives the append order (ids are chosen by the caller and
-- need not be in that order); the delivery worker marks rows with `dispatched_at`.
CREATE TABLE outbox_events (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,  -- sqlite only
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- postgres only
    id            TEXT NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    event         TEXT NOT NULL,
    payload       TEXT NOT NULL,
    occurred_at   TIMESTAMP NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    dispatched_at TIMESTAMP
);
CREATE UNIQUE INDEX outbox_events_id_key ON outbox_events (id);
CREATE INDEX outbox_events_team_id_seq_idx ON outbox_events (team_id, seq);
CREATE INDEX outbox_events_pending_idx ON outbox_events (seq) WHERE dispatched_at IS NULL;

CREATE TABLE settings (
    name  TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
