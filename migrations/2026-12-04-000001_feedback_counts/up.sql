-- How many items each team has per board, status and listing, kept by triggers (one engine's
-- file each), so a list's `total` is a sum of a few rows rather than a count of the items
-- (issue 20): the team's whole list, a board's, a status filter, with or without archived
-- items, the public's. Only tag, search and date filters still count items.
--
-- `board_id` is '' for items on no board (a key column cannot be NULL); `listing` is
-- 0 for an item listed publicly when its board is public (published, not archived: the
-- domain's `LISTED_PUBLICLY` without the board's part, which readers apply), 1 for a held
-- item (not published, not archived), 2 for an archived one. `slot` spreads concurrent
-- changes over up to 16 rows on PostgreSQL, as in `2026-12-01-000001_count_slots`; SQLite
-- keeps slot 0. Only the sum over slots means anything. No foreign keys: a row is never
-- read without its team, and a board holding items cannot be deleted.
CREATE TABLE feedback_counts (
    team_id  TEXT NOT NULL,
    board_id TEXT NOT NULL,
    status   TEXT NOT NULL,
    listing  SMALLINT NOT NULL,
    slot     SMALLINT NOT NULL DEFAULT 0,
    n        BIGINT NOT NULL,
    PRIMARY KEY (team_id, board_id, status, listing, slot)
);

INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
SELECT team_id, COALESCE(board_id, ''), status,
       CASE WHEN archived_at IS NOT NULL THEN 2 WHEN published_at IS NULL THEN 1 ELSE 0 END,
       0, COUNT(*)
FROM feedback
GROUP BY team_id, COALESCE(board_id, ''), status,
         CASE WHEN archived_at IS NOT NULL THEN 2 WHEN published_at IS NULL THEN 1 ELSE 0 END;
