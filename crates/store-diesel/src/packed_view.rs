//! An item's view as the read cache keeps it: packed into one run of bytes (postcard), about
//! a third of the memory of the view itself. The view is 560 bytes inline before its strings,
//! nine allocations in all; packed, a bench item takes 325 bytes in one, and with the cache's
//! own overhead the same budget remembers about twice as many items (docs/benchmarks.md,
//! sixteenth round).
//!
//! Unpacking is a walk over the bytes that allocates the view's strings, as a clone of the
//! view does: ids and times are kept as numbers, never as text to parse again.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use sounding_domain::{
    feedback::{BoardRef, Feedback, FeedbackStatus, FeedbackView, Priority},
    ids::{BoardId, FeedbackId, SubscriberId, TagId, TeamId},
    meta::Meta,
    subscriber::{Email, SubscriberRef},
    tag::TagRef,
    Timestamp,
};
use time::OffsetDateTime;

/// A view's bytes. `None` (no such item) is remembered too, as no bytes.
#[derive(Debug, Clone)]
pub(crate) struct PackedView(Option<Box<[u8]>>);

impl PackedView {
    /// `view` packed; `None` if it cannot be (never expected: every part has a packed form).
    pub(crate) fn pack(view: &Option<FeedbackView>) -> Option<PackedView> {
        match view {
            None => Some(PackedView(None)),
            Some(view) => postcard::to_allocvec(&Item::of(view))
                .ok()
                .map(|bytes| PackedView(Some(bytes.into_boxed_slice()))),
        }
    }

    /// The view again; `None` only if the bytes do not unpack (the caller reads anew).
    pub(crate) fn unpack(&self) -> Option<Option<FeedbackView>> {
        match &self.0 {
            None => Some(None),
            Some(bytes) => postcard::from_bytes::<Item<'_>>(bytes)
                .ok()?
                .into_view()
                .map(Some),
        }
    }

    /// The bytes it holds.
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |bytes| bytes.len())
    }
}

/// A time as nanoseconds since the epoch (UTC, as every stored time is).
type Nanos = i128;

fn nanos(at: Timestamp) -> Nanos {
    at.as_offset().unix_timestamp_nanos()
}

fn time(nanos: Nanos) -> Option<Timestamp> {
    OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .map(Timestamp::from_offset)
}

/// `None` stays `None`; `None` (the outer one) if the time is out of range.
fn maybe_time(nanos: Option<Nanos>) -> Option<Option<Timestamp>> {
    match nanos {
        None => Some(None),
        Some(nanos) => time(nanos).map(Some),
    }
}

/// `FeedbackView` field by field. Strings are borrowed while packing and owned after
/// unpacking, so each is copied once either way.
#[derive(Serialize, Deserialize)]
struct Item<'a> {
    id: FeedbackId,
    team_id: TeamId,
    board_id: Option<BoardId>,
    url_id: Cow<'a, str>,
    title: Cow<'a, str>,
    text: Cow<'a, str>,
    status: Cow<'a, str>,
    priority: Cow<'a, str>,
    kind: Option<Cow<'a, str>>,
    creator_id: SubscriberId,
    /// The meta object as JSON text; `None` for the empty object, the usual case.
    meta: Option<String>,
    published_at: Option<Nanos>,
    archived_at: Option<Nanos>,
    created_at: Nanos,
    updated_at: Nanos,
    last_modified_by_id: Option<SubscriberId>,
    board: Option<Board<'a>>,
    creator: Option<Person<'a>>,
    last_modified_by: Option<Person<'a>>,
    vote_count: i64,
    comment_count: i64,
    tags: Vec<Tag<'a>>,
}

#[derive(Serialize, Deserialize)]
struct Board<'a> {
    id: BoardId,
    name: Cow<'a, str>,
    slug: Cow<'a, str>,
    is_public: bool,
}

#[derive(Serialize, Deserialize)]
struct Person<'a> {
    id: SubscriberId,
    name: Cow<'a, str>,
    email: Option<Cow<'a, str>>,
    avatar_url: Option<Cow<'a, str>>,
}

#[derive(Serialize, Deserialize)]
struct Tag<'a> {
    id: TagId,
    name: Cow<'a, str>,
    color: Cow<'a, str>,
}

impl<'a> Item<'a> {
    fn of(view: &'a FeedbackView) -> Self {
        let f = &view.feedback;
        Item {
            id: f.id,
            team_id: f.team_id,
            board_id: f.board_id,
            url_id: Cow::Borrowed(&f.url_id),
            title: Cow::Borrowed(&f.title),
            text: Cow::Borrowed(&f.text),
            status: Cow::Borrowed(f.status.as_str()),
            priority: Cow::Borrowed(f.priority.as_str()),
            kind: f.kind.as_deref().map(Cow::Borrowed),
            creator_id: f.creator_id,
            meta: (!f.meta.is_empty())
                .then(|| serde_json::Value::Object(f.meta.clone()).to_string()),
            published_at: f.published_at.map(nanos),
            archived_at: f.archived_at.map(nanos),
            created_at: nanos(f.created_at),
            updated_at: nanos(f.updated_at),
            last_modified_by_id: f.last_modified_by_id,
            board: view.board.as_ref().map(|b| Board {
                id: b.id,
                name: Cow::Borrowed(&b.name),
                slug: Cow::Borrowed(&b.slug),
                is_public: b.is_public,
            }),
            creator: view.creator.as_ref().map(Person::of),
            last_modified_by: view.last_modified_by.as_ref().map(Person::of),
            vote_count: view.vote_count,
            comment_count: view.comment_count,
            tags: view
                .tags
                .iter()
                .map(|t| Tag {
                    id: t.id,
                    name: Cow::Borrowed(&t.name),
                    color: Cow::Borrowed(&t.color),
                })
                .collect(),
        }
    }

    fn into_view(self) -> Option<FeedbackView> {
        let meta: Meta = match self.meta {
            None => Meta::new(),
            Some(json) => serde_json::from_str(&json).ok()?,
        };
        let creator = match self.creator {
            None => None,
            Some(person) => Some(person.into_ref()?),
        };
        let last_modified_by = match self.last_modified_by {
            None => None,
            Some(person) => Some(person.into_ref()?),
        };
        Some(FeedbackView {
            feedback: Feedback {
                id: self.id,
                team_id: self.team_id,
                board_id: self.board_id,
                url_id: self.url_id.into_owned(),
                title: self.title.into_owned(),
                text: self.text.into_owned(),
                status: FeedbackStatus::parse(&self.status).ok()?,
                priority: Priority::parse(&self.priority).ok()?,
                kind: self.kind.map(Cow::into_owned),
                creator_id: self.creator_id,
                meta,
                published_at: maybe_time(self.published_at)?,
                archived_at: maybe_time(self.archived_at)?,
                created_at: time(self.created_at)?,
                updated_at: time(self.updated_at)?,
                last_modified_by_id: self.last_modified_by_id,
            },
            board: self.board.map(|b| BoardRef {
                id: b.id,
                name: b.name.into_owned(),
                slug: b.slug.into_owned(),
                is_public: b.is_public,
            }),
            creator,
            last_modified_by,
            vote_count: self.vote_count,
            comment_count: self.comment_count,
            tags: self
                .tags
                .into_iter()
                .map(|t| TagRef {
                    id: t.id,
                    name: t.name.into_owned(),
                    color: t.color.into_owned(),
                })
                .collect(),
        })
    }
}

impl<'a> Person<'a> {
    fn of(person: &'a SubscriberRef) -> Self {
        Person {
            id: person.id,
            name: Cow::Borrowed(&person.name),
            email: person.email.as_ref().map(|e| Cow::Borrowed(e.as_str())),
            avatar_url: person.avatar_url.as_deref().map(Cow::Borrowed),
        }
    }

    fn into_ref(self) -> Option<SubscriberRef> {
        Some(SubscriberRef {
            id: self.id,
            name: self.name.into_owned(),
            email: self.email.map(|e| Email::parse(&e)).transpose().ok()?,
            avatar_url: self.avatar_url.map(Cow::into_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use sounding_domain::ids::{BoardId, FeedbackId, SubscriberId, TagId, TeamId};

    use super::*;

    fn person(name: &str, avatar: Option<&str>) -> SubscriberRef {
        SubscriberRef {
            id: SubscriberId::new(),
            name: name.to_owned(),
            email: Some(Email::parse(&format!("{name}@example.com")).unwrap()),
            avatar_url: avatar.map(str::to_owned),
        }
    }

    /// An item with every part filled in, times to the millisecond (all a `Timestamp` keeps).
    fn full_view() -> FeedbackView {
        let now = Timestamp::from_offset(OffsetDateTime::now_utc());
        let meta = serde_json::json!({"plan": "pro", "seats": 12.5, "nested": {"a": [1, null]}});
        let creator = person("ada", Some("https://example.com/ada.png"));
        let editor = person("bob", None);
        FeedbackView {
            feedback: Feedback {
                id: FeedbackId::new(),
                team_id: TeamId::new(),
                board_id: Some(BoardId::new()),
                url_id: "p8c2m4x7qa".to_owned(),
                title: "Dark mode — ünïcode too".to_owned(),
                text: "Please.\nTwo lines.".to_owned(),
                status: FeedbackStatus::Planned,
                priority: Priority::High,
                kind: Some("idea".to_owned()),
                creator_id: creator.id,
                meta: meta.as_object().unwrap().clone(),
                published_at: Some(now.plus_seconds(1)),
                archived_at: Some(now.plus_seconds(2)),
                created_at: now,
                updated_at: now.plus_seconds(3),
                last_modified_by_id: Some(editor.id),
            },
            board: Some(BoardRef {
                id: BoardId::new(),
                name: "Ideas".to_owned(),
                slug: "ideas".to_owned(),
                is_public: false,
            }),
            creator: Some(creator),
            last_modified_by: Some(editor),
            vote_count: 42,
            comment_count: 7,
            tags: vec![TagRef {
                id: TagId::new(),
                name: "ux".to_owned(),
                color: "#FF0000".to_owned(),
            }],
        }
    }

    #[test]
    fn a_view_unpacks_to_itself() {
        let full = full_view();
        let mut bare = full_view();
        bare.feedback.board_id = None;
        bare.feedback.kind = None;
        bare.feedback.meta = Meta::new();
        bare.feedback.published_at = None;
        bare.feedback.archived_at = None;
        bare.feedback.last_modified_by_id = None;
        bare.board = None;
        bare.creator = None;
        bare.last_modified_by = None;
        bare.tags.clear();
        for view in [Some(full), Some(bare), None] {
            let packed = PackedView::pack(&view).unwrap();
            assert_eq!(packed.unpack(), Some(view));
        }
    }

    #[test]
    fn a_packed_view_is_a_fraction_of_the_view() {
        let view = Some(full_view());
        let packed = PackedView::pack(&view).unwrap();
        let strings: usize = [
            "p8c2m4x7qa",
            "Dark mode — ünïcode too",
            "Please.\nTwo lines.",
            "ideaIdeasideasadaada@example.comhttps://example.com/ada.pngbobbob@example.comux#FF0000",
        ]
        .iter()
        .map(|s| s.len())
        .sum();
        let meta = 60;
        // The view alone is 560 bytes before any of its strings.
        assert!(
            packed.len() < strings + meta + 250,
            "{} bytes packed, {strings} of them strings",
            packed.len()
        );
        assert!(std::mem::size_of::<FeedbackView>() >= 400);
    }

    #[test]
    fn bytes_that_do_not_unpack_are_no_answer() {
        let packed = PackedView::pack(&Some(full_view())).unwrap();
        let mut bytes = packed.0.clone().unwrap().into_vec();
        bytes.truncate(bytes.len() / 2);
        assert_eq!(PackedView(Some(bytes.into_boxed_slice())).unpack(), None);
    }
}
