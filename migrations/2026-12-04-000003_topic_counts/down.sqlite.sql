DROP TRIGGER topic_counts_update;
DROP TRIGGER topic_counts_delete;
DROP TRIGGER topic_counts_insert;
