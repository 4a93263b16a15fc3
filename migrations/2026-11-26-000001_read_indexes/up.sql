-- Indexes for the public read paths measured by `cargo xtask bench` (issue 8).
-- docs/benchmarks.md, "Profiling and changes", has the query plans that called for them.

-- A public board's list (`public/feedbacks.list` with a board): only published, unarchived
-- items are in these partial indexes, so the count reads the index alone and the `top` and
-- `newest` pages walk it in order and stop after the page instead of scanning the team.
CREATE INDEX feedback_public_board_top_idx
    ON feedback (team_id, board_id, vote_count, created_at, id)
    WHERE published_at IS NOT NULL AND archived_at IS NULL;
CREATE INDEX feedback_public_board_newest_idx
    ON feedback (team_id, board_id, created_at, id)
    WHERE published_at IS NOT NULL AND archived_at IS NULL;

-- A topic's top-level comments in order (`topic-comments.list`): the count and the page read
-- only that topic's roots, where the planner used to scan every comment of the team.
CREATE INDEX topic_comments_topic_id_roots_idx
    ON topic_comments (topic_id, team_id, created_at, id)
    WHERE parent_id IS NULL;
-- The replies of a page's threads, by root: two equality columns, so the planner prefers it to
-- the team's `(team_id, created_at)` index.
CREATE INDEX topic_comments_root_id_team_id_idx ON topic_comments (root_id, team_id);
