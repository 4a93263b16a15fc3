//! `deliveries`: the team's deliveries, newest first, filtered by subscription and status; one
//! count and one page. Hand-written SQL (through `RawSql`) like the other lists, because the
//! filters are optional.

use diesel::{sql_types::BigInt, QueryableByName};
use sounding_domain::{
    page::Paged,
    webhook::{Delivery, DeliveryQuery},
};

use super::rows::{DeliveryRow, DELIVERY_COLUMNS};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{Param, RawSql},
};

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

pub(super) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &DeliveryQuery,
) -> DbResult<Paged<Delivery>> {
    let mut count = RawSql::new();
    count.push("SELECT COUNT(*) AS n FROM webhook_deliveries d");
    selection(&mut count, team, query);
    let total = count.load::<Count>(conn)?.first().map_or(0, |c| c.n);

    let rows: Vec<DeliveryRow> = if total > query.page.offset {
        let mut page = RawSql::new();
        page.push("SELECT ")
            .push(DELIVERY_COLUMNS)
            .push(" FROM webhook_deliveries d");
        selection(&mut page, team, query);
        // Through `webhook_deliveries_team_id_created_at_idx`; `id` last so pages never overlap.
        page.push(" ORDER BY d.created_at DESC, d.id DESC LIMIT ")
            .param(Param::BigInt(query.page.limit))
            .push(" OFFSET ")
            .param(Param::BigInt(query.page.offset));
        page.load(conn)?
    } else {
        // Past the end: the page is empty and the query need not run.
        Vec::new()
    };

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
