-- How many subscribers each team has that are not deleted, kept by triggers (one engine's file
-- each), so the subscriber list's `total` is a sum of at most 16 rows rather than a count of
-- the team's subscribers (issue 20). Only a search still counts. `slot` spreads concurrent
-- changes over up to 16 rows on PostgreSQL, as in `2026-12-01-000001_count_slots`; SQLite
-- keeps slot 0. Only the sum over slots means anything.
CREATE TABLE subscriber_counts (
    team_id TEXT NOT NULL,
    slot    SMALLINT NOT NULL DEFAULT 0,
    n       BIGINT NOT NULL,
    PRIMARY KEY (team_id, slot)
);

INSERT INTO subscriber_counts (team_id, slot, n)
SELECT team_id, 0, COUNT(*) FROM subscribers WHERE deleted_at IS NULL GROUP BY team_id;
