-- New items are counted per statement on PostgreSQL: a batch of new items (one statement,
-- repos/feedback/insert.rs) adds to each kept count once per slot row it touches instead of
-- once per item, through a statement trigger over the inserted rows. The row triggers keep
-- updates and deletes. Each upsert takes its slot rows in key order, and the tables in the
-- order the row triggers take them (board, then feedback, then public counts), so a batch and a
-- lone write of the same counts do not wait for each other in a circle.
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
