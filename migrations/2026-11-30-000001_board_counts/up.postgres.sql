CREATE FUNCTION feedback_board_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Saving an item writes every column: only a change of board or archiving touches the
    -- count (and its row lock).
    IF TG_OP = 'UPDATE' AND OLD.board_id IS NOT DISTINCT FROM NEW.board_id
        AND OLD.archived_at IS NOT DISTINCT FROM NEW.archived_at THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.board_id IS NOT NULL AND OLD.archived_at IS NULL THEN
        UPDATE feedback_board_counts SET n = n - 1 WHERE board_id = OLD.board_id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.board_id IS NOT NULL AND NEW.archived_at IS NULL THEN
        INSERT INTO feedback_board_counts (board_id, n) VALUES (NEW.board_id, 1)
        ON CONFLICT (board_id) DO UPDATE SET n = feedback_board_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER feedback_board_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_board_counts_track();
