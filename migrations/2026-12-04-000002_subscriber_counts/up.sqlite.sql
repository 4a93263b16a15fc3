-- The triggers that keep `subscriber_counts` (see up.sql).
CREATE TRIGGER subscriber_counts_insert AFTER INSERT ON subscribers
WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO subscriber_counts (team_id, slot, n) VALUES (NEW.team_id, 0, 1)
    ON CONFLICT (team_id, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER subscriber_counts_delete AFTER DELETE ON subscribers
WHEN OLD.deleted_at IS NULL
BEGIN
    UPDATE subscriber_counts SET n = n - 1 WHERE team_id = OLD.team_id AND slot = 0;
END;

CREATE TRIGGER subscriber_counts_update AFTER UPDATE OF team_id, deleted_at ON subscribers
WHEN OLD.team_id IS NOT NEW.team_id
    OR (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL)
BEGIN
    UPDATE subscriber_counts SET n = n - 1
    WHERE team_id = OLD.team_id AND slot = 0 AND OLD.deleted_at IS NULL;
    INSERT INTO subscriber_counts (team_id, slot, n)
    SELECT NEW.team_id, 0, 1 WHERE NEW.deleted_at IS NULL
    ON CONFLICT (team_id, slot) DO UPDATE SET n = n + 1;
END;
