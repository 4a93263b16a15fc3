DROP TABLE subscriber_counts;
