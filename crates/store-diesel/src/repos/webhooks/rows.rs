//! The webhook tables' rows and their conversions to domain values.

use diesel::prelude::*;
use sounding_domain::{
    event::EventKind,
    webhook::{Delivery, DeliveryStatus, WebhookSubscription},
};
use time::PrimitiveDateTime;

use super::super::{from_db_time, parse_id, to_db_time};
use crate::{
    error::{DbError, DbResult},
    schema::{webhook_deliveries, webhooks},
};

/// The columns of `webhook_deliveries` that `DeliveryRow` reads by name, for the
/// hand-written SQL (the lease and the list).
pub(super) const DELIVERY_COLUMNS: &str = "d.id, d.team_id, d.webhook_id, d.event_id, d.event, \
    d.target_url, d.status, d.attempts, d.next_attempt_at, d.first_attempt_at, \
    d.last_attempt_at, d.last_status_code, d.last_error, d.last_duration_ms, d.created_at";

/// A whole `webhooks` row.
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks, treat_none_as_default_value = false)]
pub(super) struct WebhookRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) target_url: String,
    pub(super) event: String,
    pub(super) secret: String,
    pub(super) created_at: PrimitiveDateTime,
}

impl WebhookRow {
    pub(super) fn from_domain(w: &WebhookSubscription) -> Self {
        Self {
            id: w.id.to_string(),
            team_id: w.team_id.to_string(),
            target_url: w.target_url.clone(),
            event: w.event.as_str().to_owned(),
            secret: w.secret.clone(),
            created_at: to_db_time(w.created_at),
        }
    }

    pub(super) fn into_domain(self) -> DbResult<WebhookSubscription> {
        Ok(WebhookSubscription {
            id: parse_id("webhooks.id", &self.id)?,
            team_id: parse_id("webhooks.team_id", &self.team_id)?,
            target_url: self.target_url,
            event: EventKind::parse(&self.event)
                .map_err(|e| DbError::corrupt("webhooks.event", e))?,
            secret: self.secret,
            created_at: from_db_time(self.created_at),
        })
    }
}

/// A `webhook_deliveries` row as a `Delivery` (without its lease), read by name from the
/// hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = webhook_deliveries)]
pub(super) struct DeliveryRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) webhook_id: String,
    pub(super) event_id: String,
    pub(super) event: String,
    pub(super) target_url: String,
    pub(super) status: String,
    pub(super) attempts: i64,
    pub(super) next_attempt_at: Option<PrimitiveDateTime>,
    pub(super) first_attempt_at: Option<PrimitiveDateTime>,
    pub(super) last_attempt_at: Option<PrimitiveDateTime>,
    pub(super) last_status_code: Option<i64>,
    pub(super) last_error: Option<String>,
    pub(super) last_duration_ms: Option<i64>,
    pub(super) created_at: PrimitiveDateTime,
}

/// A delivery as fan-out inserts it: pending and due at once. The columns of attempts and
/// leases are left out, so they start `NULL`; every row has the same columns, so SQLite takes
/// many in one `INSERT`.
#[derive(Insertable)]
#[diesel(table_name = webhook_deliveries, treat_none_as_default_value = false)]
pub(super) struct PendingRow<'a> {
    pub(super) id: String,
    pub(super) team_id: &'a str,
    pub(super) webhook_id: &'a str,
    pub(super) event_id: &'a str,
    pub(super) event: &'a str,
    pub(super) target_url: &'a str,
    pub(super) status: &'static str,
    pub(super) attempts: i64,
    pub(super) next_attempt_at: PrimitiveDateTime,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
}

impl DeliveryRow {
    pub(super) fn into_domain(self) -> DbResult<Delivery> {
        Ok(Delivery {
            id: parse_id("webhook_deliveries.id", &self.id)?,
            team_id: parse_id("webhook_deliveries.team_id", &self.team_id)?,
            webhook_id: parse_id("webhook_deliveries.webhook_id", &self.webhook_id)?,
            event_id: parse_id("webhook_deliveries.event_id", &self.event_id)?,
            event: self.event,
            target_url: self.target_url,
            status: DeliveryStatus::parse(&self.status)
                .map_err(|e| DbError::corrupt("webhook_deliveries.status", e))?,
            attempts: self.attempts,
            next_attempt_at: self.next_attempt_at.map(from_db_time),
            first_attempt_at: self.first_attempt_at.map(from_db_time),
            last_attempt_at: self.last_attempt_at.map(from_db_time),
            last_status_code: self.last_status_code,
            last_error: self.last_error,
            last_duration_ms: self.last_duration_ms,
            created_at: from_db_time(self.created_at),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::raw_sql::test_columns_read_the_row!(
        DELIVERY_COLUMNS,
        webhook_deliveries::table,
        DeliveryRow
    );
}
