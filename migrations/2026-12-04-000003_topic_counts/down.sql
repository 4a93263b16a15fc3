DROP TABLE topic_counts;
