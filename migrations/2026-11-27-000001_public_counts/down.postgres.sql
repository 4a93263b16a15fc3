DROP TRIGGER feedback_public_counts_track ON feedback;
DROP FUNCTION feedback_public_counts_track();
