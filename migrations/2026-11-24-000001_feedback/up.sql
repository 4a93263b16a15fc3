-- Feedback, votes, comments and follows.

-- Feedback items. `board_id` has no cascade: a board holding feedback cannot be deleted (the
-- store refuses with `board_not_empty`). `creator_id` and `last_modified_by_id` have no
-- foreign key: an item outlives its creator. `search_text` is the lowercased title and text
-- (`sounding_domain::feedback::search_text`), written by the store on insert and update.
-- `vote_count` and `comment_count` are kept equal to the rows by the transactions that add
-- or remove a vote or comment.
CREATE TABLE feedback (
    id                  TEXT PRIMARY KEY NOT NULL,
    team_id             TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    board_id            TEXT REFERENCES feedback_boards (id),
    url_id              TEXT NOT NULL,
    title               TEXT NOT NULL,
    text                TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL
        CHECK (status IN ('in_review', 'in_progress', 'planned', 'completed', 'closed')),
    priority            TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    kind                TEXT,
    creator_id          TEXT NOT NULL,
    meta                TEXT NOT NULL DEFAULT '{}',
    search_text         TEXT NOT NULL,
    vote_count          BIGINT NOT NULL DEFAULT 0,
    comment_count       BIGINT NOT NULL DEFAULT 0,
    published_at        TIMESTAMP,
    archived_at         TIMESTAMP,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL,
    last_modified_by_id TEXT
);
CREATE UNIQUE INDEX feedback_team_id_url_id_key ON feedback (team_id, url_id);
-- The `newest` and `top` orders of a team's list.
CREATE INDEX feedback_team_id_created_at_idx ON feedback (team_id, created_at, id);
CREATE INDEX feedback_team_id_vote_count_idx ON feedback (team_id, vote_count, created_at, id);
-- A board's feedback count, and the check before a board is deleted.
CREATE INDEX feedback_board_id_idx ON feedback (board_id);

-- One vote per subscriber per item. `team_id` and `created_at` bound the trending window.
CREATE TABLE feedback_votes (
    id            TEXT PRIMARY KEY NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    feedback_id   TEXT NOT NULL REFERENCES feedback (id) ON DELETE CASCADE,
    subscriber_id TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX feedback_votes_feedback_id_subscriber_id_key
    ON feedback_votes (feedback_id, subscriber_id);
CREATE INDEX feedback_votes_team_id_created_at_idx ON feedback_votes (team_id, created_at);

CREATE TABLE feedback_comments (
    id            TEXT PRIMARY KEY NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    feedback_id   TEXT NOT NULL REFERENCES feedback (id) ON DELETE CASCADE,
    subscriber_id TEXT NOT NULL,
    text          TEXT NOT NULL,
    is_private    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
CREATE INDEX feedback_comments_feedback_id_created_at_idx
    ON feedback_comments (feedback_id, created_at);
CREATE INDEX feedback_comments_feedback_id_updated_at_idx
    ON feedback_comments (feedback_id, updated_at);
CREATE INDEX feedback_comments_team_id_created_at_idx ON feedback_comments (team_id, created_at);

-- Who follows an item (its creator, its commenters, and whoever asked).
CREATE TABLE feedback_follows (
    feedback_id   TEXT NOT NULL REFERENCES feedback (id) ON DELETE CASCADE,
    subscriber_id TEXT NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (feedback_id, subscriber_id)
);
