DROP TABLE topic_visits;
DROP TABLE topic_follows;
DROP TABLE topic_votes;
DROP TABLE topic_comments;
DROP TABLE topics;
DROP TABLE stages;
DROP TABLE roadmaps;
