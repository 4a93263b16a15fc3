DROP TRIGGER feedback_board_counts_track ON feedback;
DROP FUNCTION feedback_board_counts_track();
