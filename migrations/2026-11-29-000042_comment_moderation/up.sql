-- Team moderation of comments (issue 18).
-- A topic comment the team deletes while replies answer it stays as a tombstone: its text
-- erased, `deleted_at` set, no longer counted in the topic's `comment_count`.
ALTER TABLE topic_comments ADD COLUMN deleted_at TIMESTAMP;
-- Whether a comment has replies (deleting it removes the row or leaves a tombstone), found by
-- index rather than by reading its thread.
CREATE INDEX topic_comments_parent_id_idx ON topic_comments (parent_id);
