-- Documents (help articles and announcements) and their emoji reactions.

-- `title_key` (the lowercased title) and `search_text` (lowercased title and text) are written
-- by the store, so both engines sort and search the same way.
CREATE TABLE documents (
    id           TEXT PRIMARY KEY NOT NULL,
    team_id      TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    url_id       TEXT NOT NULL,
    title        TEXT NOT NULL,
    title_key    TEXT NOT NULL,
    text         TEXT NOT NULL DEFAULT '',
    search_text  TEXT NOT NULL DEFAULT '',
    published_at TIMESTAMP,
    created_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX documents_team_id_url_id_key ON documents (team_id, url_id);
CREATE INDEX documents_team_id_created_at_idx ON documents (team_id, created_at);
CREATE INDEX documents_team_id_published_at_idx ON documents (team_id, published_at);

-- One reaction per emoji per subscriber per document. `subscriber_id` has no foreign key:
-- reactions outlive their subscriber, as votes do.
CREATE TABLE document_reactions (
    document_id   TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    subscriber_id TEXT NOT NULL,
    emoji         TEXT NOT NULL,
    team_id       TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX document_reactions_document_id_subscriber_id_emoji_key
    ON document_reactions (document_id, subscriber_id, emoji);
