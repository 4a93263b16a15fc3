ALTER TABLE roadmaps DROP COLUMN is_private;
