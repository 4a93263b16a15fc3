DROP TRIGGER subscriber_counts_track ON subscribers;
DROP FUNCTION subscriber_counts_track();
