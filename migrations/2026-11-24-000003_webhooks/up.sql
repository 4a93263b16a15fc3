-- Webhook subscriptions and their durable deliveries.

-- A target URL subscribed to one event of the team. `secret` signs every delivery.
CREATE TABLE webhooks (
    id         TEXT PRIMARY KEY NOT NULL,
    team_id    TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    target_url TEXT NOT NULL,
    event      TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_team_id_created_at_idx ON webhooks (team_id, created_at);

-- One outbox event on its way to one subscription. `webhook_id` has no foreign key: the
-- history outlives the subscription. `target_url` is the subscription's target when the event
-- fanned out. A worker holds a delivery while `lease_until` is in the future; `lease_owner`
-- says which worker, and only that worker may record the attempt.
CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY NOT NULL,
    team_id          TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    webhook_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    event            TEXT NOT NULL,
    target_url       TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         BIGINT NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMP,
    first_attempt_at TIMESTAMP,
    last_attempt_at  TIMESTAMP,
    last_status_code BIGINT,
    last_error       TEXT,
    last_duration_ms BIGINT,
    lease_owner      TEXT,
    lease_until      TIMESTAMP,
    created_at       TIMESTAMP NOT NULL,
    updated_at       TIMESTAMP NOT NULL
);
-- Fan-out is idempotent: one delivery per event and subscription.
CREATE UNIQUE INDEX webhook_deliveries_event_id_webhook_id_key
    ON webhook_deliveries (event_id, webhook_id);
-- The workers' queue: pending deliveries by due time.
CREATE INDEX webhook_deliveries_due_idx
    ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- The team's delivery list (newest first) and a subscription's deliveries.
CREATE INDEX webhook_deliveries_team_id_created_at_idx
    ON webhook_deliveries (team_id, created_at, id);
CREATE INDEX webhook_deliveries_webhook_id_created_at_idx
    ON webhook_deliveries (webhook_id, created_at);
