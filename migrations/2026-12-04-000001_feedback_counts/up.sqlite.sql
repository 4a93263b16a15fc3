-- The triggers that keep `feedback_counts` (see up.sql). An update only moves the count when
-- what it is kept by changes: saving an item writes every column.
CREATE TRIGGER feedback_counts_insert AFTER INSERT ON feedback
BEGIN
    INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
    VALUES (NEW.team_id, COALESCE(NEW.board_id, ''), NEW.status,
            CASE WHEN NEW.archived_at IS NOT NULL THEN 2
                 WHEN NEW.published_at IS NULL THEN 1 ELSE 0 END,
            0, 1)
    ON CONFLICT (team_id, board_id, status, listing, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER feedback_counts_delete AFTER DELETE ON feedback
BEGIN
    UPDATE feedback_counts SET n = n - 1
    WHERE team_id = OLD.team_id AND board_id = COALESCE(OLD.board_id, '')
      AND status = OLD.status AND slot = 0
      AND listing = CASE WHEN OLD.archived_at IS NOT NULL THEN 2
                         WHEN OLD.published_at IS NULL THEN 1 ELSE 0 END;
END;

CREATE TRIGGER feedback_counts_update
AFTER UPDATE OF team_id, board_id, status, published_at, archived_at ON feedback
WHEN OLD.team_id IS NOT NEW.team_id OR OLD.board_id IS NOT NEW.board_id
    OR OLD.status IS NOT NEW.status
    OR (OLD.published_at IS NULL) IS NOT (NEW.published_at IS NULL)
    OR (OLD.archived_at IS NULL) IS NOT (NEW.archived_at IS NULL)
BEGIN
    UPDATE feedback_counts SET n = n - 1
    WHERE team_id = OLD.team_id AND board_id = COALESCE(OLD.board_id, '')
      AND status = OLD.status AND slot = 0
      AND listing = CASE WHEN OLD.archived_at IS NOT NULL THEN 2
                         WHEN OLD.published_at IS NULL THEN 1 ELSE 0 END;
    INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
    VALUES (NEW.team_id, COALESCE(NEW.board_id, ''), NEW.status,
            CASE WHEN NEW.archived_at IS NOT NULL THEN 2
                 WHEN NEW.published_at IS NULL THEN 1 ELSE 0 END,
            0, 1)
    ON CONFLICT (team_id, board_id, status, listing, slot) DO UPDATE SET n = n + 1;
END;
