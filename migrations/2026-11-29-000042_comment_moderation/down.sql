DROP INDEX topic_comments_parent_id_idx;
ALTER TABLE topic_comments DROP COLUMN deleted_at;
