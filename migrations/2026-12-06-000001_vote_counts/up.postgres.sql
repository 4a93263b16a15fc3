-- The triggers that keep `feedback_vote_counts` (see up.sql) one row per item, its copied
-- columns equal to the item's. New items per statement, like their other counts (migration
-- 2026-12-05-000001): a batch of items is one insert here.
CREATE FUNCTION feedback_vote_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO feedback_vote_counts (id, team_id, board_id, published_at, archived_at, created_at)
    SELECT id, team_id, board_id, published_at, archived_at, created_at FROM inserted;
    RETURN NULL;
END;
$$;

CREATE TRIGGER feedback_vote_counts_inserted
AFTER INSERT ON feedback REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION feedback_vote_counts_inserted();

-- Saving an item writes every column: the row is written only when a copied one changed.
CREATE FUNCTION feedback_vote_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM feedback_vote_counts WHERE id = OLD.id;
    ELSIF (OLD.team_id, OLD.board_id, OLD.published_at, OLD.archived_at, OLD.created_at)
          IS DISTINCT FROM
          (NEW.team_id, NEW.board_id, NEW.published_at, NEW.archived_at, NEW.created_at) THEN
        UPDATE feedback_vote_counts
        SET team_id = NEW.team_id, board_id = NEW.board_id, published_at = NEW.published_at,
            archived_at = NEW.archived_at, created_at = NEW.created_at
        WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER feedback_vote_counts_track
AFTER DELETE OR UPDATE OF team_id, board_id, published_at, archived_at, created_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_vote_counts_track();
