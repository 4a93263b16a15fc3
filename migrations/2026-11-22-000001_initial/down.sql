DROP TABLE settings;
DROP TABLE outbox_events;
DROP TABLE feedback_boards;
DROP TABLE subscribers;
DROP TABLE api_keys;
DROP TABLE team_users;
DROP TABLE teams;
