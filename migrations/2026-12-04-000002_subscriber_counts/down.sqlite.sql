DROP TRIGGER subscriber_counts_update;
DROP TRIGGER subscriber_counts_delete;
DROP TRIGGER subscriber_counts_insert;
