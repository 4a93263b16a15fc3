DROP TABLE feedback_public_counts;
