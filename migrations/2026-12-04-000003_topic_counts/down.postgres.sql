DROP TRIGGER topic_counts_track ON topics;
DROP FUNCTION topic_counts_track();
