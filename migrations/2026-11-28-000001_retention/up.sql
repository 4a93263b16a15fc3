-- Retention of webhook history (issue 17).
--
-- Every `sounding serve` prunes finished history older than SOUNDING_EVENT_RETENTION every
-- minute, a few hundred rows per transaction (docs/storage.md, "Retention"). These partial
-- indexes hold only what it looks for, oldest first, so a prune reads the rows it deletes
-- instead of scanning the tables.

-- Finished (delivered or failed) deliveries by their last change.
CREATE INDEX webhook_deliveries_finished_idx
    ON webhook_deliveries (updated_at) WHERE status <> 'pending';
-- Fanned-out events by their fan-out time.
CREATE INDEX outbox_events_dispatched_idx
    ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL;
