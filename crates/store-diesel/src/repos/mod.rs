//! One file per resource, each implementing its port for `DieselStore`; here, the conversions
//! between column values and domain values they share.
//!
//! Every `Insertable` row says `treat_none_as_default_value = false`: an empty field is then a
//! bound `NULL` (every nullable column's default anyway) instead of the `DEFAULT` keyword.
//! Without it diesel never keeps prepared an `INSERT` of a row with any `Option` field, empty
//! or not, so on PostgreSQL each was parsed and planned anew (docs/benchmarks.md, fourteenth
//! round).

mod access;
mod boards;
mod documents;
pub(crate) mod feedback;
mod follows;
pub(crate) mod lock;
mod notifications;
pub(crate) mod outbox;
pub(crate) mod paging;
mod roadmaps;
mod settings;
mod subscriber_admin;
mod subscribers;
mod tags;
mod teams;
mod topics;
mod webhooks;

use std::str::FromStr;

use serde_json::{Map, Value};
use sounding_domain::{access::Role, timestamp::Timestamp};
use time::PrimitiveDateTime;

use crate::error::{DbError, DbResult};

/// An id column (hyphenated UUID text) as its domain id type.
pub(crate) fn parse_id<T>(column: &str, raw: &str) -> DbResult<T>
where
    T: FromStr<Err = uuid::Error>,
{
    raw.parse()
        .map_err(|e| DbError::corrupt(column, format!("{raw:?} is not a UUID ({e})")))
}

pub(crate) fn to_db_time(at: Timestamp) -> PrimitiveDateTime {
    at.to_utc_primitive()
}

pub(crate) fn from_db_time(at: PrimitiveDateTime) -> Timestamp {
    Timestamp::from_utc_primitive(at)
}

pub(crate) fn parse_role(column: &str, raw: &str) -> DbResult<Role> {
    Role::parse(raw).map_err(|e| DbError::corrupt(column, e))
}

pub(crate) fn to_json_object(map: &Map<String, Value>) -> DbResult<String> {
    serde_json::to_string(map).map_err(|e| DbError::corrupt("json", e))
}

pub(crate) fn parse_json(column: &str, raw: &str) -> DbResult<Value> {
    serde_json::from_str(raw).map_err(|e| DbError::corrupt(column, e))
}

pub(crate) fn parse_json_object(column: &str, raw: &str) -> DbResult<Map<String, Value>> {
    match parse_json(column, raw)? {
        Value::Object(map) => Ok(map),
        other => Err(DbError::corrupt(
            column,
            format!("{other} is not an object"),
        )),
    }
}
