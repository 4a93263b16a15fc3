DROP TRIGGER feedback_vote_counts_track ON feedback;
DROP TRIGGER feedback_vote_counts_inserted ON feedback;
DROP FUNCTION feedback_vote_counts_track();
DROP FUNCTION feedback_vote_counts_inserted();
