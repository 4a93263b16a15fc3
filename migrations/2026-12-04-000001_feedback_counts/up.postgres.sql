-- The trigger that keeps `feedback_counts` (see up.sql). A change lands in the slot its item's
-- id hashes to, whether or not that row exists yet (a slot may go below zero: only the sum
-- means anything). An update only moves the count when what it is kept by changes: saving an
-- item writes every column.
CREATE FUNCTION feedback_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.team_id = NEW.team_id
        AND OLD.board_id IS NOT DISTINCT FROM NEW.board_id
        AND OLD.status = NEW.status
        AND (OLD.published_at IS NULL) = (NEW.published_at IS NULL)
        AND (OLD.archived_at IS NULL) = (NEW.archived_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
        VALUES (OLD.team_id, COALESCE(OLD.board_id, ''), OLD.status,
                CASE WHEN OLD.archived_at IS NOT NULL THEN 2
                     WHEN OLD.published_at IS NULL THEN 1 ELSE 0 END,
                hashtext(OLD.id) & 15, -1)
        ON CONFLICT (team_id, board_id, status, listing, slot)
        DO UPDATE SET n = feedback_counts.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
        VALUES (NEW.team_id, COALESCE(NEW.board_id, ''), NEW.status,
                CASE WHEN NEW.archived_at IS NOT NULL THEN 2
                     WHEN NEW.published_at IS NULL THEN 1 ELSE 0 END,
                hashtext(NEW.id) & 15, 1)
        ON CONFLICT (team_id, board_id, status, listing, slot)
        DO UPDATE SET n = feedback_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER feedback_counts_track
AFTER INSERT OR DELETE OR UPDATE OF team_id, board_id, status, published_at, archived_at
ON feedback FOR EACH ROW EXECUTE FUNCTION feedback_counts_track();
