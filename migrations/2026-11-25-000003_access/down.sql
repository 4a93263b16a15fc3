DROP INDEX subscribers_team_id_created_at_idx;
ALTER TABLE subscribers DROP COLUMN deleted_at;
