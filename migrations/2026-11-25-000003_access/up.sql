-- Team administration (issue 6). A deleted subscriber keeps its row (its comments and votes keep an author) with its
-- personal data erased and `deleted_at` set; administration lists and lookups skip it.
ALTER TABLE subscribers ADD COLUMN deleted_at TIMESTAMP;
CREATE INDEX subscribers_team_id_created_at_idx ON subscribers (team_id, created_at);
