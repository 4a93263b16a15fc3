-- How many unarchived items (published or not) each board has: a board's `feedbackCount`
-- (`BoardView::feedback_count`, read by `feedback-boards.list`/`info` and by every
-- `public/feedbacks.create` through the board) read from one row instead of counted over the
-- board's items on every read. Triggers (up.sqlite.sql, up.postgres.sql) keep it exact in the
-- same transaction as every change to an item, whichever code path makes it. The row goes with
-- its board (a board is deleted only once no item is on it, so its count is then 0).
-- docs/storage.md, "Feedback" (a board's `feedback_count`).
CREATE TABLE feedback_board_counts (
    board_id TEXT PRIMARY KEY NOT NULL REFERENCES feedback_boards (id) ON DELETE CASCADE,
    n        BIGINT NOT NULL
);

INSERT INTO feedback_board_counts (board_id, n)
SELECT board_id, COUNT(*) FROM feedback
WHERE board_id IS NOT NULL AND archived_at IS NULL
GROUP BY board_id;
