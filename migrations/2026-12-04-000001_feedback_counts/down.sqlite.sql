DROP TRIGGER feedback_counts_update;
DROP TRIGGER feedback_counts_delete;
DROP TRIGGER feedback_counts_insert;
