//! `feedbacks.export`: every item of the team (unpublished and archived too), optionally of
//! one board and status, newest first, as CSV with a header row. Read page by page through
//! the feedback list (a constant number of statements per page), never in one query.

use std::collections::HashSet;

use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    feedback::{FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus, FeedbackView},
    page::{PageRequest, MAX_LIMIT},
    ports::{BoardStore, Clock, FeedbackStore},
    FeedbackId, Timestamp,
};

use super::guard_cell;
use crate::{
    error::{AppError, AppResult},
    feedback::team_board,
};

/// The header row, in order.
pub const COLUMNS: [&str; 14] = [
    "id",
    "title",
    "text",
    "status",
    "priority",
    "type",
    "board",
    "creatorEmail",
    "creatorName",
    "votes",
    "comments",
    "createdAt",
    "publishedAt",
    "archivedAt",
];

/// The body of `feedbacks.export`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct ExportInput {
    /// `boardId`: only items on this board of the team (404 otherwise); every board when absent.
    pub board_id: Option<String>,
    /// Only items in this status (`in_review`, `in_progress`, …); every status when absent.
    pub status: Option<String>,
}

/// The CSV text (UTF-8, CRLF line ends, header first).
pub async fn export_feedback(
    store: &(impl BoardStore + FeedbackStore + ?Sized),
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: ExportInput,
) -> AppResult<String> {
    caller.require(Need::Write)?;
    let status = parse_given(input.status.as_deref(), FeedbackStatus::parse)?;
    let board = match input.board_id.as_deref() {
        Some(raw) => Some(team_board(store, &Caller::Team(caller.clone()), raw).await?),
        None => None,
    };
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    out.write_record(COLUMNS).map_err(csv_failure)?;

    let mut query = FeedbackQuery {
        scope: FeedbackScope::Team {
            include_archived: true,
        },
        sort: FeedbackSort::Newest,
        statuses: status.into_iter().collect(),
        board_id: board.map(|b| b.board.id),
        search: None,
        tag_id: None,
        trending_since: clock.now(),
        created: sounding_domain::feedback::CreatedRange::default(),
        page: PageRequest {
            limit: MAX_LIMIT,
            offset: 0,
        },
    };
    // An item created while the export pages shifts the pages by one: it is then met twice,
    // and written once.
    let mut written: HashSet<FeedbackId> = HashSet::new();
    loop {
        let page = store.list_feedback(caller.team_id, &query).await?;
        for view in &page.items {
            if written.insert(view.feedback.id) {
                out.write_record(row(view)).map_err(csv_failure)?;
            }
        }
        query.page.offset += query.page.limit;
        if page.items.is_empty() || query.page.offset >= page.total {
            break;
        }
    }
    let bytes = out
        .into_inner()
        .map_err(|e| failure(format!("CSV could not be written: {e}")))?;
    // Every cell came from a `String`, so the bytes are UTF-8.
    String::from_utf8(bytes).map_err(|e| failure(format!("CSV is not UTF-8: {e}")))
}

fn time(at: Option<Timestamp>) -> String {
    at.map(|t| t.to_rfc3339()).unwrap_or_default()
}

fn row(view: &FeedbackView) -> [String; 14] {
    let f = &view.feedback;
    let creator = view.creator.as_ref();
    [
        f.id.to_string(),
        guard_cell(&f.title),
        guard_cell(&f.text),
        f.status.as_str().to_owned(),
        f.priority.as_str().to_owned(),
        guard_cell(f.kind.as_deref().unwrap_or_default()),
        guard_cell(view.board.as_ref().map_or("", |b| b.name.as_str())),
        guard_cell(
            creator
                .and_then(|c| c.email.as_ref())
                .map_or("", |e| e.as_str()),
        ),
        guard_cell(creator.map_or("", |c| c.name.as_str())),
        view.vote_count.to_string(),
        view.comment_count.to_string(),
        time(Some(f.created_at)),
        time(f.published_at),
        time(f.archived_at),
    ]
}

fn csv_failure(e: csv::Error) -> AppError {
    failure(format!("CSV could not be written: {e}"))
}

/// Writing to memory fails only on a bug: a server error, never the client's.
fn failure(message: String) -> AppError {
    AppError::Store(sounding_domain::ports::StoreError::Failure(message.into()))
}
