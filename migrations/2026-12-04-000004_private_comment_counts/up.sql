-- Each item keeps how many of its comments are private, beside `comment_count` (all of them),
-- moved in the transactions that add, remove and re-scope comments, so the comment list's
-- `total` for a caller who may not see private comments is `comment_count -
-- private_comment_count`, read with the item, rather than a count of its comments (issue 20).
ALTER TABLE feedback ADD COLUMN private_comment_count BIGINT NOT NULL DEFAULT 0;
UPDATE feedback SET private_comment_count = (
    SELECT COUNT(*) FROM feedback_comments c WHERE c.feedback_id = feedback.id AND c.is_private
);
