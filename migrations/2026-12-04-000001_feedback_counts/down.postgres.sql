DROP TRIGGER feedback_counts_track ON feedback;
DROP FUNCTION feedback_counts_track();
