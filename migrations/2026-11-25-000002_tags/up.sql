-- Tags and the feedback items carrying them.

-- A team's tag. `name_key` is the name lowercased by the store
-- (`sounding_domain::tag::name_key`, Unicode-aware, so both engines fold case the same way);
-- its unique index makes names unique per team regardless of case.
CREATE TABLE tags (
    id         TEXT PRIMARY KEY NOT NULL,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    color      TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX tags_team_id_name_key_key ON tags (team_id, name_key);

-- Which item carries which tag. Both sides cascade: deleting a tag takes it off every item,
-- deleting an item drops its tags.
CREATE TABLE feedback_tags (
    feedback_id TEXT NOT NULL REFERENCES feedback (id) ON DELETE CASCADE,
    tag_id      TEXT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    team_id     TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    PRIMARY KEY (feedback_id, tag_id)
);
-- The `tagId` filter of feedbacks.list, and taking a deleted tag off its items.
CREATE INDEX feedback_tags_tag_id_idx ON feedback_tags (tag_id);
