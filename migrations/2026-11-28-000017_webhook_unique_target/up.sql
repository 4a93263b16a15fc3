-- One subscription per team, target URL and event (issue 17).
--
-- A second identical automation.subscribe used to add a second subscription, and every event
-- then went out twice. Duplicates already stored are merged into the oldest of each group,
-- which has a delivery of every event any of them has (each event fans out to the
-- subscriptions existing then). The others are removed as automation.unsubscribe removes
-- one: their pending deliveries (doubles of the oldest's) end 'failed' with 'unsubscribed'.
-- Their signing secrets stop signing: a receiver set up with a later duplicate's secret needs
-- the oldest's, or a new subscription (docs/decisions.md).
CREATE TEMPORARY TABLE webhook_duplicates AS
SELECT w.id AS dropped_id
FROM webhooks w
WHERE EXISTS (
    SELECT 1 FROM webhooks k
    WHERE k.team_id = w.team_id AND k.target_url = w.target_url AND k.event = w.event
      AND (k.created_at < w.created_at OR (k.created_at = w.created_at AND k.id < w.id))
);

UPDATE webhook_deliveries
SET status = 'failed', last_error = 'unsubscribed', next_attempt_at = NULL,
    lease_owner = NULL, lease_until = NULL
WHERE status = 'pending' AND webhook_id IN (SELECT dropped_id FROM webhook_duplicates);

DELETE FROM webhooks WHERE id IN (SELECT dropped_id FROM webhook_duplicates);

DROP TABLE webhook_duplicates;

-- What makes automation.subscribe's insert-or-get atomic (INSERT … ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX webhooks_team_id_target_url_event_key ON webhooks (team_id, target_url, event);
