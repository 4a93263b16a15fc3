-- The triggers that keep `topic_counts` (see up.sql). An update only moves the count when
-- what it is kept by changes: saving a topic writes every column.
CREATE TRIGGER topic_counts_insert AFTER INSERT ON topics
BEGIN
    INSERT INTO topic_counts (stage_id, published, slot, team_id, roadmap_id, n)
    VALUES (NEW.stage_id, NEW.published_at IS NOT NULL, 0, NEW.team_id, NEW.roadmap_id, 1)
    ON CONFLICT (stage_id, published, slot) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER topic_counts_delete AFTER DELETE ON topics
BEGIN
    UPDATE topic_counts SET n = n - 1
    WHERE stage_id = OLD.stage_id AND published = (OLD.published_at IS NOT NULL) AND slot = 0;
END;

CREATE TRIGGER topic_counts_update
AFTER UPDATE OF team_id, roadmap_id, stage_id, published_at ON topics
WHEN OLD.stage_id IS NOT NEW.stage_id
    OR (OLD.published_at IS NULL) IS NOT (NEW.published_at IS NULL)
BEGIN
    UPDATE topic_counts SET n = n - 1
    WHERE stage_id = OLD.stage_id AND published = (OLD.published_at IS NOT NULL) AND slot = 0;
    INSERT INTO topic_counts (stage_id, published, slot, team_id, roadmap_id, n)
    VALUES (NEW.stage_id, NEW.published_at IS NOT NULL, 0, NEW.team_id, NEW.roadmap_id, 1)
    ON CONFLICT (stage_id, published, slot) DO UPDATE SET n = n + 1;
END;
