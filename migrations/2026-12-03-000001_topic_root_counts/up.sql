-- A topic's top-level comments, tombstones included, kept by the transactions that add and
-- remove them (like `comment_count`), so a page of the topic's threads reads its total rather
-- than counting comments (issue 20).
ALTER TABLE topics ADD COLUMN root_comment_count BIGINT NOT NULL DEFAULT 0;
UPDATE topics SET root_comment_count = (
    SELECT COUNT(*) FROM topic_comments c WHERE c.topic_id = topics.id AND c.parent_id IS NULL
);
