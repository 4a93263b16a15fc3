-- Subscribers' notifications.

-- One notification of one subscriber, written in the transaction of the change it tells of
-- (a public comment, a status change, a stage change of something they follow). `title` is
-- the item's or topic's title at that time; `feedback_id`, `topic_id`, `comment_id` and
-- `actor_id` have no foreign key: the notification outlives what it names.
CREATE TABLE notifications (
    id              TEXT PRIMARY KEY NOT NULL,
    team_id         TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    subscriber_id   TEXT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL CHECK (kind IN ('comment', 'status_change', 'stage_change')),
    feedback_id     TEXT,
    topic_id        TEXT,
    comment_id      TEXT,
    title           TEXT NOT NULL,
    status          TEXT,
    previous_status TEXT,
    actor_id        TEXT,
    read_at         TIMESTAMP,
    created_at      TIMESTAMP NOT NULL
);
-- A subscriber's list, newest first, and their unread ones.
CREATE INDEX notifications_subscriber_id_created_at_idx
    ON notifications (subscriber_id, created_at, id);
CREATE INDEX notifications_subscriber_id_unread_idx
    ON notifications (subscriber_id) WHERE read_at IS NULL;
