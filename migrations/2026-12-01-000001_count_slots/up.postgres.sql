-- Spreads each board's two kept counts (`feedback_board_counts`, `feedback_public_counts`) over
-- up to 16 rows on PostgreSQL, one per `slot`, and reads them as a sum. With one row per board,
-- every new item on a board waited for the previous one's commit: the count row stays locked
-- until the transaction's commit is on disk, so creates on one board went one durable commit at
-- a time (docs/benchmarks.md, ninth round). An item's changes always land in the slot its id
-- hashes to, so concurrent creates mostly take different rows and commit together. A change
-- adds or subtracts in that slot whether or not the row exists yet (an item counted before this
-- migration is in slot 0, so a slot may go below zero): only the sum means anything. SQLite has
-- one writer at a time and keeps one row (slot 0).
ALTER TABLE feedback_board_counts ADD COLUMN slot SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE feedback_board_counts DROP CONSTRAINT feedback_board_counts_pkey;
ALTER TABLE feedback_board_counts ADD PRIMARY KEY (board_id, slot);
ALTER TABLE feedback_public_counts ADD COLUMN slot SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE feedback_public_counts DROP CONSTRAINT feedback_public_counts_pkey;
ALTER TABLE feedback_public_counts ADD PRIMARY KEY (board_id, slot);

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
