-- The triggers that keep `feedback_vote_counts` (see up.sql) one row per item, its copied
-- columns equal to the item's. Saving an item writes every column, hence the `WHEN`.
CREATE TRIGGER feedback_vote_counts_insert AFTER INSERT ON feedback
BEGIN
    INSERT INTO feedback_vote_counts (id, team_id, board_id, published_at, archived_at, created_at)
    VALUES (NEW.id, NEW.team_id, NEW.board_id, NEW.published_at, NEW.archived_at, NEW.created_at);
END;

CREATE TRIGGER feedback_vote_counts_update
AFTER UPDATE OF team_id, board_id, published_at, archived_at, created_at ON feedback
WHEN OLD.team_id IS NOT NEW.team_id OR OLD.board_id IS NOT NEW.board_id
    OR OLD.published_at IS NOT NEW.published_at OR OLD.archived_at IS NOT NEW.archived_at
    OR OLD.created_at IS NOT NEW.created_at
BEGIN
    UPDATE feedback_vote_counts
    SET team_id = NEW.team_id, board_id = NEW.board_id, published_at = NEW.published_at,
        archived_at = NEW.archived_at, created_at = NEW.created_at
    WHERE id = NEW.id;
END;

CREATE TRIGGER feedback_vote_counts_delete AFTER DELETE ON feedback
BEGIN
    DELETE FROM feedback_vote_counts WHERE id = OLD.id;
END;
