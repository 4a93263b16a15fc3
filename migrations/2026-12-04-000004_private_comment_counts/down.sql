ALTER TABLE feedback DROP COLUMN private_comment_count;
