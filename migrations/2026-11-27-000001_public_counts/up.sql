-- How many published, unarchived items each board has: the `total` of a public board's list
-- (`public/feedbacks.list` with a board and no other filter) read from one row instead of
-- counted over the board's items on every request. Triggers (up.sqlite.sql, up.postgres.sql)
-- keep it exact in the same transaction as every change to an item, whichever code path makes
-- it. docs/storage.md, "Counts kept by triggers".
CREATE TABLE feedback_public_counts (
    board_id TEXT PRIMARY KEY NOT NULL,
    n        BIGINT NOT NULL
);

INSERT INTO feedback_public_counts (board_id, n)
SELECT board_id, COUNT(*) FROM feedback
WHERE board_id IS NOT NULL AND published_at IS NOT NULL AND archived_at IS NULL
GROUP BY board_id;
