CREATE TRIGGER feedback_board_counts_insert AFTER INSERT ON feedback
WHEN NEW.board_id IS NOT NULL AND NEW.archived_at IS NULL
BEGIN
    INSERT INTO feedback_board_counts (board_id, n) VALUES (NEW.board_id, 1)
    ON CONFLICT (board_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER feedback_board_counts_delete AFTER DELETE ON feedback
WHEN OLD.board_id IS NOT NULL AND OLD.archived_at IS NULL
BEGIN
    UPDATE feedback_board_counts SET n = n - 1 WHERE board_id = OLD.board_id;
END;

-- Saving an item writes every column: only a change of board or archiving touches the count.
CREATE TRIGGER feedback_board_counts_update
AFTER UPDATE OF board_id, archived_at ON feedback
WHEN OLD.board_id IS NOT NEW.board_id OR OLD.archived_at IS NOT NEW.archived_at
BEGIN
    UPDATE feedback_board_counts SET n = n - 1
    WHERE board_id = OLD.board_id AND OLD.archived_at IS NULL;
    INSERT INTO feedback_board_counts (board_id, n)
    SELECT NEW.board_id, 1
    WHERE NEW.board_id IS NOT NULL AND NEW.archived_at IS NULL
    ON CONFLICT (board_id) DO UPDATE SET n = n + 1;
END;
