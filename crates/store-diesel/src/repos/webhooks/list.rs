//! `deliveries`: the team's deliveries, newest first, filtered by subscription and status; one
//! count and one page. Hand-written SQL (through `RawSql`) like the other lists, because the
//! filters are optional.

use sounding_domain::{
    page::Paged,
    webhook::{Delivery, DeliveryQuery},
};

use super::rows::{DeliveryRow, DELIVERY_COLUMNS};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::RawSql,
    repos::paging::{counted_page, ListSql},
};

pub(super) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &DeliveryQuery,
) -> DbResult<Paged<Delivery>> {
    let (total, rows): (i64, Vec<DeliveryRow>) = counted_page(
        conn,
        query.page,
        ListSql {
            from: "webhook_deliveries d",
            columns: DELIVERY_COLUMNS,
            selection: |sql: &mut RawSql| selection(sql, team, query),
            // Through `webhook_deliveries_team_id_created_at_idx`; `id` last so pages never
            // overlap.
            order: |sql: &mut RawSql| {
                sql.push(" ORDER BY d.created_at DESC, d.id DESC");
            },
        },
    )?;

    Ok(Paged {
        items: rows
            .into_iter()
            .map(DeliveryRow::into_domain)
            .collect::<DbResult<_>>()?,
        total,
        page: query.page,
    })
}

/// The `WHERE` clause that picks the query's deliveries (shared by the count and the page).
fn selection(sql: &mut RawSql, team: &str, query: &DeliveryQuery) {
    sql.push(" WHERE d.team_id = ").text(team);
    if let Some(webhook) = query.webhook_id {
        sql.push(" AND d.webhook_id = ").text(webhook.to_string());
    }
    if let Some(status) = query.status {
        sql.push(" AND d.status = ").text(status.as_str());
    }
}
