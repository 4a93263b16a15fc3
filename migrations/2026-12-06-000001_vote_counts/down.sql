ALTER TABLE feedback ADD COLUMN vote_count BIGINT NOT NULL DEFAULT 0;
UPDATE feedback
SET vote_count = COALESCE((SELECT c.vote_count FROM feedback_vote_counts c WHERE c.id = feedback.id), 0);
DROP TABLE feedback_vote_counts;
CREATE INDEX feedback_team_id_vote_count_idx ON feedback (team_id, vote_count, created_at, id);
CREATE INDEX feedback_public_board_top_idx
    ON feedback (team_id, board_id, vote_count, created_at, id)
    WHERE published_at IS NOT NULL AND archived_at IS NULL;
