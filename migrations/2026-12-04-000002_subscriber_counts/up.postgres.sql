-- The trigger that keeps `subscriber_counts` (see up.sql). A change lands in the slot its
-- subscriber's id hashes to, whether or not that row exists yet (a slot may go below zero:
-- only the sum means anything). Saving a subscriber writes every column: only a change of
-- team or of being deleted moves the count.
CREATE FUNCTION subscriber_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.team_id = NEW.team_id
        AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
        INSERT INTO subscriber_counts (team_id, slot, n)
        VALUES (OLD.team_id, hashtext(OLD.id) & 15, -1)
        ON CONFLICT (team_id, slot) DO UPDATE SET n = subscriber_counts.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
        INSERT INTO subscriber_counts (team_id, slot, n)
        VALUES (NEW.team_id, hashtext(NEW.id) & 15, 1)
        ON CONFLICT (team_id, slot) DO UPDATE SET n = subscriber_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER subscriber_counts_track
AFTER INSERT OR DELETE OR UPDATE OF team_id, deleted_at
ON subscribers FOR EACH ROW EXECUTE FUNCTION subscriber_counts_track();
