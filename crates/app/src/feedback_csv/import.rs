//! `feedbacks.import`: creates one item per data row of a CSV in `feedbacks.export`'s format,
//! each exactly as `feedbacks.create` would (same checks, `new_feedback` emitted). Rows that
//! fail are refused with their reason; the others are created (each row commits on its own).
//!
//! Columns are found by their header name: `title` is required; `text`, `status`,
//! `priority`, `type`, `board`, `creatorEmail`, `creatorName` (the name of a subscriber the
//! import creates; an existing one keeps theirs) are read when present; the
//! rest (`id`, counts, dates) are ignored: imported items are new. Rows are numbered as a
//! spreadsheet shows them: the header is row 1, the first item row 2.

use std::collections::HashMap;

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::{Clock, Store},
    subscriber::Email,
};

use super::{unguard_cell, COLUMNS};
use crate::{
    error::{AppError, AppResult},
    feedback::{create_feedback, team_board, NewFeedbackInput},
};

/// The body of `feedbacks.import`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct ImportInput {
    /// The CSV text, header row first, at most 5,000 data rows; required.
    pub csv: Option<String>,
    /// Every row goes to this board (the `board` column is then ignored).
    pub board_id: Option<String>,
}

/// A data row that created nothing, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRow {
    /// The row as a spreadsheet numbers it: the header is row 1.
    pub row: u64,
    /// Why: the error `feedbacks.create` gave, an unknown `board`, or a row that is not CSV.
    pub error: String,
}

/// What an import did: how many items it created and which rows it refused.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportReport {
    /// Items created.
    pub created: u64,
    /// The rows refused, in row order.
    pub refused: Vec<RefusedRow>,
}

/// One data row, its cells unguarded; empty cells are absent.
#[derive(Debug)]
struct Row {
    number: u64,
    cells: HashMap<&'static str, String>,
}

/// Rows one request may carry. Each row is its own `feedbacks.create`, so an unbounded file
/// would hold a request (and the writer) for minutes; bigger files are split.
pub const MAX_ROWS: usize = 5_000;

/// The columns an import reads: the export's from `title` to `creatorName`, so an export
/// imports again.
fn read_columns() -> &'static [&'static str] {
    &COLUMNS[1..9]
}

/// `feedbacks.import {csv, boardId?}`: creates an item per data row and reports the refused
/// ones. Any key but a read-only one (403); 400 for a file without a `title` header or over
/// 5,000 rows, 404 for another team's `boardId`.
pub async fn import_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: ImportInput,
) -> AppResult<ImportReport> {
    caller.require(Need::Write)?;
    let text = input
        .csv
        .ok_or_else(|| AppError::invalid("csv is required"))?;
    let as_team = sounding_domain::access::Caller::Team(caller.clone());
    let fixed_board = match input.board_id.as_deref() {
        Some(raw) => Some(team_board(store, &as_team, raw).await?.board.id),
        None => None,
    };
    let (rows, mut refused) = parse(&text)?;

    // The team's boards by name, read once (a board's name is not unique: the first wins).
    let mut boards = HashMap::new();
    if fixed_board.is_none() {
        for view in store.boards(caller.team_id, false).await? {
            boards
                .entry(view.board.name.clone())
                .or_insert(view.board.id);
        }
    }

    let mut report = ImportReport::default();
    for mut row in rows {
        let board_id = match (fixed_board, row.cells.remove("board")) {
            (Some(id), _) => Some(id),
            (None, Some(name)) => match boards.get(name.trim()) {
                Some(id) => Some(*id),
                None => {
                    refused.push(RefusedRow {
                        row: row.number,
                        error: format!("board {:?} not found", name.trim()),
                    });
                    continue;
                }
            },
            (None, None) => None,
        };
        let mut take = |name: &str| row.cells.remove(name);
        let mut new = NewFeedbackInput {
            title: Some(take("title").unwrap_or_default()),
            text: take("text"),
            status: take("status"),
            priority: take("priority"),
            board_id: board_id.map(|id| id.to_string()),
            kind: take("type"),
            meta: None,
            creator_email: take("creatorEmail"),
            creator_name: take("creatorName"),
            ..NewFeedbackInput::default()
        };
        // An existing subscriber keeps their name; the row's name is for a new one.
        if let (Some(raw), Some(_)) = (new.creator_email.as_deref(), &new.creator_name) {
            if let Ok(email) = Email::parse(raw) {
                if store
                    .subscriber_by_email(caller.team_id, email.as_str())
                    .await?
                    .is_some()
                {
                    new.creator_name = None;
                }
            }
        }
        match create_feedback(store, clock, caller, new).await {
            Ok(_) => report.created += 1,
            // The client's mistakes refuse the row; a failure of the service stops the import
            // (the rows before it stay created).
            Err(AppError::Domain(e)) => refused.push(RefusedRow {
                row: row.number,
                error: e.to_string(),
            }),
            Err(AppError::Literal(e)) => refused.push(RefusedRow {
                row: row.number,
                error: e.to_string(),
            }),
            Err(e) => return Err(e),
        }
    }
    refused.sort_by_key(|r| r.row);
    report.refused = refused;
    Ok(report)
}

/// The data rows, and the rows refused already because they could not be read. A missing or
/// malformed header refuses the whole file.
fn parse(text: &str) -> AppResult<(Vec<Row>, Vec<RefusedRow>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| AppError::invalid(format!("csv is not valid CSV: {e}")))?
        .clone();
    let index: Vec<(&'static str, usize)> = read_columns()
        .iter()
        .filter_map(|name| {
            headers
                .iter()
                .position(|h| unguard_cell(h.trim_start_matches('\u{feff}').trim()) == *name)
                .map(|i| (*name, i))
        })
        .collect();
    if !index.iter().any(|(name, _)| *name == "title") {
        return Err(AppError::invalid(
            "csv must have a header row with a title column",
        ));
    }
    let mut rows = Vec::new();
    let mut refused = Vec::new();
    for (n, record) in reader.records().enumerate() {
        // Header is row 1.
        let number = n as u64 + 2;
        match record {
            Ok(record) => {
                if record.iter().all(|c| c.trim().is_empty()) {
                    continue;
                }
                if rows.len() == MAX_ROWS {
                    return Err(AppError::invalid(format!(
                        "csv must have at most {MAX_ROWS} rows; split the file"
                    )));
                }
                let cells = index
                    .iter()
                    .filter_map(|(name, i)| {
                        let cell = unguard_cell(record.get(*i)?);
                        (!cell.trim().is_empty()).then(|| (*name, cell.to_owned()))
                    })
                    .collect();
                rows.push(Row { number, cells });
            }
            Err(e) => refused.push(RefusedRow {
                row: number,
                error: format!("row is not valid CSV: {e}"),
            }),
        }
    }
    Ok((rows, refused))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_by_header_name_unguarded_and_numbered_like_a_spreadsheet() {
        let text = "creatorEmail,title,extra\r\na@example.com,\"'=1+1, \"\"quoted\"\"\nnext\",x\r\n,,\r\nb@example.com,Two,y\r\n";
        let (rows, refused) = parse(text).unwrap();
        assert!(refused.is_empty());
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].number, 2);
        assert_eq!(rows[0].cells["title"], "=1+1, \"quoted\"\nnext");
        assert_eq!(rows[0].cells["creatorEmail"], "a@example.com");
        assert_eq!(rows[1].number, 4);
        assert!(!rows[1].cells.contains_key("text"));
    }

    #[test]
    fn a_file_over_the_row_limit_is_refused_whole() {
        let mut text = String::from("title\n");
        for i in 0..MAX_ROWS {
            text.push_str(&format!("t{i}\n"));
        }
        assert_eq!(parse(&text).unwrap().0.len(), MAX_ROWS);
        text.push_str("one too many\n");
        assert_eq!(
            parse(&text).unwrap_err(),
            AppError::invalid("csv must have at most 5000 rows; split the file")
        );
    }

    #[test]
    fn a_file_without_a_title_column_is_refused_whole() {
        let err = parse("name,text\r\nx,y\r\n").unwrap_err();
        assert_eq!(
            err,
            AppError::invalid("csv must have a header row with a title column")
        );
    }
}
