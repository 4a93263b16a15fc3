DROP TABLE feedback_tags;
DROP TABLE tags;
