DROP TABLE feedback_counts;
