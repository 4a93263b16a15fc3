//! The one way a stored row changes. A use case describes the change as an [`Edit`]: a
//! function of the row as it is. The store runs it on the row read *inside* its write
//! transaction (under a row lock where the engine has one), and writes the result back,
//! with the events the edit asked for, only when the row really changed ([`run`]).
//!
//! Why: an update that reads the row first and writes every column back later undoes any
//! change committed in between, and announces a change that another request already made.
//! Read, decide and write in one transaction, and concurrent requests compose instead.

use crate::{error::DomainResult, event::NewEvent, DomainError, Entity};

/// A change to one stored row: edits the row in place and returns the events the change
/// causes. The events are kept only when the row really changed. An error refuses the change
/// (nothing is written).
pub type Edit<T> = Box<dyn FnOnce(&mut T) -> DomainResult<Vec<NewEvent>> + Send>;

/// What removing a stored row announces: the events, built from the row as the store read
/// it inside the transaction that removes it (so they describe what was really removed).
pub type RemovalEvents<T> = Box<dyn FnOnce(&T) -> Vec<NewEvent> + Send>;

/// What a store did with an [`Edit`].
#[derive(Debug, Clone, PartialEq)]
pub enum Edited<T> {
    /// There is no such row: nothing written.
    Gone,
    /// The edit refused the row as it found it: nothing written.
    Refused(DomainError),
    /// The edit left the row as it was: nothing written, no events.
    Unchanged(T),
    /// The row as written, with the edit's events, in one transaction.
    Changed(T),
}

impl<T> Edited<T> {
    /// The row after the edit, changed or not; `<entity> not found` when there was none,
    /// the edit's own error when it refused.
    pub fn into_result(self, entity: Entity) -> DomainResult<T> {
        match self {
            Edited::Gone => Err(DomainError::NotFound(entity)),
            Edited::Refused(error) => Err(error),
            Edited::Unchanged(value) | Edited::Changed(value) => Ok(value),
        }
    }

    /// Whether the store wrote the row, and so the edit's events.
    pub fn changed(&self) -> bool {
        matches!(self, Edited::Changed(_))
    }
}

/// Why a store did not write an edited row.
#[derive(Debug)]
pub enum Blocked<E> {
    /// The row as edited breaks a rule only the store can check (a tag that is not the
    /// team's): the edit is refused. Raised before anything is written.
    Refused(DomainError),
    /// The store failed.
    Failed(E),
}

impl<E> From<E> for Blocked<E> {
    fn from(error: E) -> Self {
        Blocked::Failed(error)
    }
}

/// The decision every store makes for an edit, given the row it read in its write
/// transaction (`None`: there is none): `Gone`, `Refused`, `Unchanged`, or `write` and then
/// `Changed`. `write` gets the row before and after the edit and the edit's events, and
/// writes them in the caller's transaction.
pub fn run<T, E>(
    found: Option<T>,
    edit: Edit<T>,
    write: impl FnOnce(&T, &T, Vec<NewEvent>) -> Result<(), Blocked<E>>,
) -> Result<Edited<T>, E>
where
    T: Clone + PartialEq,
{
    let Some(before) = found else {
        return Ok(Edited::Gone);
    };
    let mut after = before.clone();
    let events = match edit(&mut after) {
        Ok(events) => events,
        Err(refused) => return Ok(Edited::Refused(refused)),
    };
    // A row that comes out as it went in is unchanged, and the edit's events are dropped:
    // one real change, one event, however many requests asked for it.
    if after == before {
        return Ok(Edited::Unchanged(before));
    }
    match write(&before, &after, events) {
        Ok(()) => Ok(Edited::Changed(after)),
        Err(Blocked::Refused(refused)) => Ok(Edited::Refused(refused)),
        Err(Blocked::Failed(error)) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{event::EventKind, TeamId, Timestamp};

    fn event() -> NewEvent {
        NewEvent::new(
            TeamId::new(),
            EventKind::FeedbacksUpdate,
            Timestamp::from_unix_seconds(1).unwrap(),
            &[],
            serde_json::Value::Null,
        )
    }

    #[test]
    fn an_edit_that_changes_nothing_writes_nothing_and_drops_its_events() {
        let mut writes = 0;
        let edited = run(
            Some(1),
            Box::new(|n: &mut i32| {
                *n = 1;
                Ok(vec![event()])
            }),
            |_, _, _| {
                writes += 1;
                Ok::<_, Blocked<()>>(())
            },
        )
        .unwrap();
        assert_eq!(edited, Edited::Unchanged(1));
        assert_eq!(writes, 0);
    }

    #[test]
    fn a_real_change_is_written_once_with_its_events() {
        let mut written = Vec::new();
        let edited = run(
            Some(1),
            Box::new(|n: &mut i32| {
                *n += 1;
                Ok(vec![event()])
            }),
            |before, after, events| {
                written.push((*before, *after, events.len()));
                Ok::<_, Blocked<()>>(())
            },
        )
        .unwrap();
        assert_eq!(edited, Edited::Changed(2));
        assert_eq!(written, vec![(1, 2, 1)]);
    }

    #[test]
    fn a_missing_row_or_a_refusal_writes_nothing() {
        let never = |_: &i32, _: &i32, _: Vec<NewEvent>| -> Result<(), Blocked<()>> {
            panic!("nothing may be written")
        };
        let refuse: Edit<i32> = Box::new(|_| Err(DomainError::invalid("no")));
        assert_eq!(
            run(Some(1), refuse, never).unwrap(),
            Edited::Refused(DomainError::invalid("no"))
        );
        assert_eq!(
            run(None, Box::new(|_| Ok(vec![])), never).unwrap(),
            Edited::<i32>::Gone
        );
    }
}
