-- How many topics each stage has, published or not (awaiting moderation), kept by triggers
-- (one engine's file each), so the topic list's `total` and a stage's `topicCount` are sums of
-- a few rows rather than counts of the topics (issue 20). `team_id` and `roadmap_id` are the
-- stage's, for the lists of a team and of a roadmap. `slot` spreads concurrent changes over up
-- to 16 rows on PostgreSQL, as in `2026-12-01-000001_count_slots`; SQLite keeps slot 0. Only
-- the sum over slots means anything. No foreign keys: a stage holding topics cannot be
-- deleted, and a deleted roadmap's topics leave rows of 0 behind.
CREATE TABLE topic_counts (
    stage_id   TEXT NOT NULL,
    published  SMALLINT NOT NULL,
    slot       SMALLINT NOT NULL DEFAULT 0,
    team_id    TEXT NOT NULL,
    roadmap_id TEXT NOT NULL,
    n          BIGINT NOT NULL,
    PRIMARY KEY (stage_id, published, slot)
);
CREATE INDEX topic_counts_team_id_roadmap_id_idx ON topic_counts (team_id, roadmap_id);

INSERT INTO topic_counts (stage_id, published, slot, team_id, roadmap_id, n)
SELECT stage_id, CASE WHEN published_at IS NULL THEN 0 ELSE 1 END, 0, team_id, roadmap_id,
       COUNT(*)
FROM topics
GROUP BY stage_id, CASE WHEN published_at IS NULL THEN 0 ELSE 1 END, team_id, roadmap_id;
