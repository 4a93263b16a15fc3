ALTER TABLE topics DROP COLUMN root_comment_count;
