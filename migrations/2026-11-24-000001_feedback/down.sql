DROP TABLE feedback_follows;
DROP TABLE feedback_comments;
DROP TABLE feedback_votes;
DROP TABLE feedback;
