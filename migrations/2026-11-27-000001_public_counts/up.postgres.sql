CREATE FUNCTION feedback_public_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.board_id IS NOT NULL AND OLD.published_at IS NOT NULL
        AND OLD.archived_at IS NULL THEN
        UPDATE feedback_public_counts SET n = n - 1 WHERE board_id = OLD.board_id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.board_id IS NOT NULL AND NEW.published_at IS NOT NULL
        AND NEW.archived_at IS NULL THEN
        INSERT INTO feedback_public_counts (board_id, n) VALUES (NEW.board_id, 1)
        ON CONFLICT (board_id) DO UPDATE SET n = feedback_public_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER feedback_public_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, published_at, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_public_counts_track();
