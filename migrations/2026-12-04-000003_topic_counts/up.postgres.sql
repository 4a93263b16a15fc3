-- The trigger that keeps `topic_counts` (see up.sql). A change lands in the slot its topic's
-- id hashes to, whether or not that row exists yet (a slot may go below zero: only the sum
-- means anything). Saving a topic writes every column: only a change of stage or of being
-- published moves the count (a stage belongs to one roadmap and one team).
CREATE FUNCTION topic_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.stage_id = NEW.stage_id
        AND (OLD.published_at IS NULL) = (NEW.published_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO topic_counts (stage_id, published, slot, team_id, roadmap_id, n)
        VALUES (OLD.stage_id, CASE WHEN OLD.published_at IS NULL THEN 0 ELSE 1 END,
                hashtext(OLD.id) & 15, OLD.team_id, OLD.roadmap_id, -1)
        ON CONFLICT (stage_id, published, slot) DO UPDATE SET n = topic_counts.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO topic_counts (stage_id, published, slot, team_id, roadmap_id, n)
        VALUES (NEW.stage_id, CASE WHEN NEW.published_at IS NULL THEN 0 ELSE 1 END,
                hashtext(NEW.id) & 15, NEW.team_id, NEW.roadmap_id, 1)
        ON CONFLICT (stage_id, published, slot) DO UPDATE SET n = topic_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER topic_counts_track
AFTER INSERT OR DELETE OR UPDATE OF team_id, roadmap_id, stage_id, published_at
ON topics FOR EACH ROW EXECUTE FUNCTION topic_counts_track();
