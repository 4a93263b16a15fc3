-- New items are counted per statement on PostgreSQL: a batch of new items (one statement,
-- repos/feedback/insert.rs) adds to each kept count once per slot row it touches instead of
-- once per item, through a statement trigger over the inserted rows. The row triggers keep
-- updates and deletes.
--
-- Every writer of the counts now takes their rows in one order: table by table (board, then
-- the list's, then the public counts: the row triggers fire in name order, the statement
-- trigger upserts in that order), and within a table in key order. The statement trigger's
-- upserts are sorted; an update's row trigger, which moves an item from one key to another,
-- now writes both keys by one sorted upsert instead of the old key first. So a batch (many
-- keys) and an update (two) never wait for each other in a circle.
DROP TRIGGER feedback_board_counts_track ON feedback;
CREATE TRIGGER feedback_board_counts_track
AFTER DELETE OR UPDATE OF board_id, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_board_counts_track();

DROP TRIGGER feedback_counts_track ON feedback;
CREATE TRIGGER feedback_counts_track
AFTER DELETE OR UPDATE OF team_id, board_id, status, published_at, archived_at
ON feedback FOR EACH ROW EXECUTE FUNCTION feedback_counts_track();

DROP TRIGGER feedback_public_counts_track ON feedback;
CREATE TRIGGER feedback_public_counts_track
AFTER DELETE OR UPDATE OF board_id, published_at, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_public_counts_track();

CREATE FUNCTION feedback_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO feedback_board_counts (board_id, slot, n)
    SELECT board_id, hashtext(id) & 15, count(*) FROM inserted
    WHERE board_id IS NOT NULL AND archived_at IS NULL
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_board_counts.n + EXCLUDED.n;

    INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
    SELECT team_id, COALESCE(board_id, ''), status,
           CASE WHEN archived_at IS NOT NULL THEN 2
                WHEN published_at IS NULL THEN 1 ELSE 0 END,
           hashtext(id) & 15, count(*)
    FROM inserted
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (team_id, board_id, status, listing, slot)
    DO UPDATE SET n = feedback_counts.n + EXCLUDED.n;

    INSERT INTO feedback_public_counts (board_id, slot, n)
    SELECT board_id, hashtext(id) & 15, count(*) FROM inserted
    WHERE board_id IS NOT NULL AND published_at IS NOT NULL AND archived_at IS NULL
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_public_counts.n + EXCLUDED.n;
    RETURN NULL;
END
$$;

CREATE TRIGGER feedback_counts_inserted
AFTER INSERT ON feedback REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION feedback_counts_inserted();

CREATE OR REPLACE FUNCTION feedback_board_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Saving an item writes every column: only a change of board or archiving touches the
    -- count (and its row lock).
    IF TG_OP = 'UPDATE' AND OLD.board_id IS NOT DISTINCT FROM NEW.board_id
        AND OLD.archived_at IS NOT DISTINCT FROM NEW.archived_at THEN
        RETURN NULL;
    END IF;
    INSERT INTO feedback_board_counts (board_id, slot, n)
    SELECT board_id, slot, sum(n) FROM (VALUES
        (OLD.board_id, hashtext(OLD.id) & 15, -1,
         TG_OP <> 'INSERT' AND OLD.archived_at IS NULL),
        (NEW.board_id, hashtext(NEW.id) & 15, 1,
         TG_OP <> 'DELETE' AND NEW.archived_at IS NULL)
    ) AS change (board_id, slot, n, counted)
    WHERE counted AND board_id IS NOT NULL
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_board_counts.n + EXCLUDED.n;
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
    INSERT INTO feedback_counts (team_id, board_id, status, listing, slot, n)
    SELECT team_id, board_id, status, listing, slot, sum(n) FROM (VALUES
        (OLD.team_id, COALESCE(OLD.board_id, ''), OLD.status,
         CASE WHEN OLD.archived_at IS NOT NULL THEN 2
              WHEN OLD.published_at IS NULL THEN 1 ELSE 0 END,
         hashtext(OLD.id) & 15, -1, TG_OP <> 'INSERT'),
        (NEW.team_id, COALESCE(NEW.board_id, ''), NEW.status,
         CASE WHEN NEW.archived_at IS NOT NULL THEN 2
              WHEN NEW.published_at IS NULL THEN 1 ELSE 0 END,
         hashtext(NEW.id) & 15, 1, TG_OP <> 'DELETE')
    ) AS change (team_id, board_id, status, listing, slot, n, counted)
    WHERE counted
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (team_id, board_id, status, listing, slot)
    DO UPDATE SET n = feedback_counts.n + EXCLUDED.n;
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
    INSERT INTO feedback_public_counts (board_id, slot, n)
    SELECT board_id, slot, sum(n) FROM (VALUES
        (OLD.board_id, hashtext(OLD.id) & 15, -1,
         TG_OP <> 'INSERT' AND OLD.published_at IS NOT NULL AND OLD.archived_at IS NULL),
        (NEW.board_id, hashtext(NEW.id) & 15, 1,
         TG_OP <> 'DELETE' AND NEW.published_at IS NOT NULL AND NEW.archived_at IS NULL)
    ) AS change (board_id, slot, n, counted)
    WHERE counted AND board_id IS NOT NULL
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (board_id, slot) DO UPDATE SET n = feedback_public_counts.n + EXCLUDED.n;
    RETURN NULL;
END
$$;
