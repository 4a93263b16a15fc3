DROP TRIGGER feedback_counts_inserted ON feedback;
DROP FUNCTION feedback_counts_inserted();

DROP TRIGGER feedback_board_counts_track ON feedback;
CREATE TRIGGER feedback_board_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_board_counts_track();

DROP TRIGGER feedback_counts_track ON feedback;
CREATE TRIGGER feedback_counts_track
AFTER INSERT OR DELETE OR UPDATE OF team_id, board_id, status, published_at, archived_at
ON feedback FOR EACH ROW EXECUTE FUNCTION feedback_counts_track();

DROP TRIGGER feedback_public_counts_track ON feedback;
CREATE TRIGGER feedback_public_counts_track
AFTER INSERT OR DELETE OR UPDATE OF board_id, published_at, archived_at ON feedback
FOR EACH ROW EXECUTE FUNCTION feedback_public_counts_track();
