-- Roadmaps, stages, topics and the topics' comments, votes, follows and visits.

-- Roadmaps: named sets of stages.
CREATE TABLE roadmaps (
    id          TEXT PRIMARY KEY NOT NULL,
    team_id     TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE INDEX roadmaps_team_id_created_at_idx ON roadmaps (team_id, created_at);

-- Stages of a roadmap. `position` is the domain's `order` (ORDER is reserved), kept 1, 2, 3…
-- by the store, which renumbers a roadmap's stages under a lock on the roadmap's row. It is
-- deliberately not unique: a renumbering moves rows through transient duplicates.
CREATE TABLE stages (
    id                 TEXT PRIMARY KEY NOT NULL,
    team_id            TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    roadmap_id         TEXT NOT NULL REFERENCES roadmaps (id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    position           BIGINT NOT NULL,
    is_private         BOOLEAN NOT NULL DEFAULT FALSE,
    disable_moderation BOOLEAN NOT NULL DEFAULT FALSE,
    color              TEXT,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL
);
CREATE INDEX stages_roadmap_id_position_idx ON stages (roadmap_id, position);

-- Topics (feature requests) on a stage. `stage_id` has no cascade: a stage holding topics is
-- deleted only when forced, and the store then deletes the topics itself. `subscriber_id` (the
-- creator) has no foreign key: a topic outlives its creator. `title_key` is the lowercased
-- title, written by the store, so both engines sort titles the same way (bytewise: `COLLATE
-- "C"` on PostgreSQL, SQLite's default BINARY). The counts are kept equal to the rows by the
-- transactions that add or remove a vote or comment; `visits` by `record_topic_visit`.
CREATE TABLE topics (
    id            TEXT PRIMARY KEY NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    roadmap_id    TEXT NOT NULL REFERENCES roadmaps (id) ON DELETE CASCADE,
    stage_id      TEXT NOT NULL REFERENCES stages (id),
    url_id        TEXT NOT NULL,
    title         TEXT NOT NULL,
    title_key     TEXT NOT NULL,
    description   TEXT NOT NULL,
    text          TEXT NOT NULL DEFAULT '',
    subscriber_id TEXT NOT NULL,
    meta          TEXT NOT NULL DEFAULT '{}',
    visits        BIGINT NOT NULL DEFAULT 0,
    vote_count    BIGINT NOT NULL DEFAULT 0,
    comment_count BIGINT NOT NULL DEFAULT 0,
    published_at  TIMESTAMP,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX topics_team_id_url_id_key ON topics (team_id, url_id);
-- A stage's topics (and its published-topic count), a team's list, a roadmap's topics.
CREATE INDEX topics_stage_id_created_at_idx ON topics (stage_id, created_at);
CREATE INDEX topics_team_id_created_at_idx ON topics (team_id, created_at);
CREATE INDEX topics_roadmap_id_idx ON topics (roadmap_id);

-- Threaded comments: `parent_id` is the comment answered (NULL at the top level), `root_id`
-- the thread's top-level comment (itself at the top level), so a page of threads loads its
-- replies in one query. `creator_id` has no foreign key: comments outlive their authors.
CREATE TABLE topic_comments (
    id         TEXT PRIMARY KEY NOT NULL,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    topic_id   TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    creator_id TEXT NOT NULL,
    parent_id  TEXT,
    root_id    TEXT NOT NULL,
    text       TEXT NOT NULL,
    source     TEXT NOT NULL CHECK (source IN ('widget', 'api', 'email')),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX topic_comments_topic_id_created_at_idx ON topic_comments (topic_id, created_at);
CREATE INDEX topic_comments_root_id_created_at_idx ON topic_comments (root_id, created_at);
CREATE INDEX topic_comments_team_id_created_at_idx ON topic_comments (team_id, created_at);

-- One vote per subscriber per topic.
CREATE TABLE topic_votes (
    id         TEXT PRIMARY KEY NOT NULL,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    topic_id   TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    creator_id TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX topic_votes_topic_id_creator_id_key ON topic_votes (topic_id, creator_id);

-- Who follows a topic (its creator, its commenters, and whoever asked).
CREATE TABLE topic_follows (
    topic_id      TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    subscriber_id TEXT NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (topic_id, subscriber_id)
);

-- When each viewer's visit last counted: another view within the window does not count.
CREATE TABLE topic_visits (
    topic_id        TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    viewer          TEXT NOT NULL,
    last_counted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (topic_id, viewer)
);
