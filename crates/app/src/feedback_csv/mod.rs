//! Feedback as CSV: `feedbacks.export` (the team's items as one RFC 4180 file) and
//! `feedbacks.import` (the same file, into this or another team). Both need a writing key:
//! an export hands out every item and its creators' e-mails, which a read-only key's
//! `.list/.info/.count` allowance does not cover.
//!
//! Spreadsheet formula injection: a cell that would start with `=`, `+`, `-`, `@`, a tab or a
//! carriage return is written with a leading `'`; import takes that `'` off again.

mod export;
mod import;

pub use export::{export_feedback, ExportInput, COLUMNS};
pub use import::{import_feedback, ImportInput, ImportReport, RefusedRow};

/// What a spreadsheet would read as the start of a formula.
fn starts_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// The cell as written: prefixed with `'` when it would start a formula.
pub fn guard_cell(cell: &str) -> String {
    if starts_formula(cell) {
        format!("'{cell}")
    } else {
        cell.to_owned()
    }
}

/// The cell as read back: the guard's `'` taken off (only where the guard put it).
pub fn unguard_cell(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if starts_formula(rest) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_starts_are_guarded_and_unguarded() {
        for raw in ["=SUM(A1)", "+1", "-2", "@cmd", "\tx", "\rx"] {
            let guarded = guard_cell(raw);
            assert_eq!(guarded, format!("'{raw}"));
            assert_eq!(unguard_cell(&guarded), raw);
        }
        assert_eq!(guard_cell("plain"), "plain");
        assert_eq!(guard_cell(""), "");
        // An apostrophe the user wrote is kept.
        assert_eq!(unguard_cell("'quoted'"), "'quoted'");
        assert_eq!(guard_cell("'quoted'"), "'quoted'");
    }
}
