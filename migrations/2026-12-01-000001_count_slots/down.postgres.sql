-- Back to one row per board: the slots summed into slot 0, the triggers of the migrations
-- before (2026-11-27-000001_public_counts, 2026-11-30-000001_board_counts).
CREATE OR REPLACE FUNCTION feedback_board_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE OR REPLACE FUNCTION feedback_public_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TEMPORARY TABLE summed_board_counts AS
SELECT board_id, SUM(n)::BIGINT AS n FROM feedback_board_counts GROUP BY board_id;
DELETE FROM feedback_board_counts;
ALTER TABLE feedback_board_counts DROP CONSTRAINT feedback_board_counts_pkey;
ALTER TABLE feedback_board_counts DROP COLUMN slot;
ALTER TABLE feedback_board_counts ADD PRIMARY KEY (board_id);
INSERT INTO feedback_board_counts (board_id, n) SELECT board_id, n FROM summed_board_counts;
DROP TABLE summed_board_counts;

CREATE TEMPORARY TABLE summed_public_counts AS
SELECT board_id, SUM(n)::BIGINT AS n FROM feedback_public_counts GROUP BY board_id;
DELETE FROM feedback_public_counts;
ALTER TABLE feedback_public_counts DROP CONSTRAINT feedback_public_counts_pkey;
ALTER TABLE feedback_public_counts DROP COLUMN slot;
ALTER TABLE feedback_public_counts ADD PRIMARY KEY (board_id);
INSERT INTO feedback_public_counts (board_id, n) SELECT board_id, n FROM summed_public_counts;
DROP TABLE summed_public_counts;
