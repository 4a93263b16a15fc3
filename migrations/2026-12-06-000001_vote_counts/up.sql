-- An item's vote count moves out of its `feedback` row into a narrow row of its own, with the
-- "top" sort's indexes (issue 20). A vote used to update the item's row, and since
-- `vote_count` is in two of its seven indexes, PostgreSQL could never update it in place
-- (HOT): every vote wrote a new version of the whole row and an entry into all seven indexes.
-- Now a vote writes this row and its three indexes only (docs/benchmarks.md, twenty-seventh
-- round). The item's columns the top sort filters and orders by are copied here and kept
-- equal by triggers (the engine files), so a top page still walks one index in order. On
-- SQLite the table is its key's B-tree (`WITHOUT ROWID`): a rowid table would be two, the
-- rows and the key's index, each written by an item's insert and read by a vote.
CREATE TABLE feedback_vote_counts (
    id           TEXT NOT NULL PRIMARY KEY,
    team_id      TEXT NOT NULL,
    board_id     TEXT,
    published_at TIMESTAMP,
    archived_at  TIMESTAMP,
    created_at   TIMESTAMP NOT NULL,
    vote_count   BIGINT NOT NULL DEFAULT 0
) WITHOUT ROWID;  -- sqlite only
);  -- postgres only

INSERT INTO feedback_vote_counts (id, team_id, board_id, published_at, archived_at, created_at, vote_count)
SELECT id, team_id, board_id, published_at, archived_at, created_at, vote_count FROM feedback;

CREATE INDEX feedback_vote_counts_top_idx
    ON feedback_vote_counts (team_id, vote_count, created_at, id);
-- A public board's top page (the partial index it replaces: migration 2026-11-26-000001).
CREATE INDEX feedback_vote_counts_public_board_top_idx
    ON feedback_vote_counts (team_id, board_id, vote_count, created_at, id)
    WHERE published_at IS NOT NULL AND archived_at IS NULL;

DROP INDEX feedback_team_id_vote_count_idx;
DROP INDEX feedback_public_board_top_idx;
ALTER TABLE feedback DROP COLUMN vote_count;
