DROP TRIGGER feedback_counts_inserted ON feedback;
DROP FUNCTION feedback_counts_inserted();

DROP TRIGGER feedback_board_counts_track ON feedback;
CREATE TRIGGER feedback_board_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_board_counts_track();

DROP TRIGGER feedback_counts_track ON feedback;
CREATE TRIGGER feedback_counts_track
AFTER INSERT OR DELETE OR UPDATE OF team_id, board_id, status, published_at, archived_at
ON feedback FOR EACH ROW EXECUTE FUNCTION feedback_counts_track();

DROP TRIGGER feedback_public_counts_track ON feedback;
CREATE TRIGGER feedback_public_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, published_at, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_public_counts_track();

-- The row triggers' functions as migrations 2026-12-01-000001_count_slots and
-- 2026-12-04-000001_feedback_counts left them.
CREATE OR REPLACE FUNCTION feedback_board_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Saving an item writes every column: only a change of board or archiving touches the
    -- count (and its row lock).
    IF TG_OP = 'UPDATE' AND OLD.board_id IS NOT DISTINCT FROM NEW.board_id
        AND OLD.archived_at IS NOT DISTINCT FROM NEW.archived_at THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.board_id IS NOT NULL AND OLD.archived_at IS NULL THEN
        INSERT INTO feedback_board_counts (board_id, slot, n)
        VALUES (OLD.board_id, hashtext(OLD.id) & 15, -1)
        ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_board_counts.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.board_id IS NOT NULL AND NEW.archived_at IS NULL THEN
        INSERT INTO feedback_board_counts (board_id, slot, n)
        VALUES (NEW.board_id, hashtext(NEW.id) & 15, 1)
        ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_board_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION feedback_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION feedback_public_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.board_id IS NOT DISTINCT FROM NEW.board_id
        AND OLD.published_at IS NOT DISTINCT FROM NEW.published_at
        AND OLD.archived_at IS NOT DISTINCT FROM NEW.archived_at THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.board_id IS NOT NULL AND OLD.published_at IS NOT NULL
        AND OLD.archived_at IS NULL THEN
        INSERT INTO feedback_public_counts (board_id, slot, n)
        VALUES (OLD.board_id, hashtext(OLD.id) & 15, -1)
        ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_public_counts.n - 1;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.board_id IS NOT NULL AND NEW.published_at IS NOT NULL
        AND NEW.archived_at IS NULL THEN
        INSERT INTO feedback_public_counts (board_id, slot, n)
        VALUES (NEW.board_id, hashtext(NEW.id) & 15, 1)
        ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_public_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$;
