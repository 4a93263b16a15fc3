//! Feedback boards: named, ordered containers of feedback, public or private.

use serde_json::Value;

use crate::{
    error::{DomainError, DomainResult},
    ids::{BoardId, TeamId},
    meta::Settings,
    slug, text,
    timestamp::Timestamp,
};

/// A board's settings, read and written as its `meta` object (`isPublic`,
/// `allowPublicSubmissions`, `requireModeration`, `color`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardMeta {
    /// Outsiders may see it and its published items; when `false`, only team members may.
    pub is_public: bool,
    /// Whether `public/feedbacks.create` may post to it; `false` refuses subscribers with 403
    /// `This board does not accept public submissions`.
    pub allow_public_submissions: bool,
    /// Public submissions to it start unpublished, awaiting moderation (as all do when the
    /// team's `publicBoardModeration` is on).
    pub require_moderation: bool,
    /// Uppercase `#RRGGBB`; `None` until set, or once cleared.
    pub color: Option<String>,
}

impl Default for BoardMeta {
    /// A new board is public and open to submissions, like a board made in a dashboard.
    fn default() -> Self {
        Self {
            is_public: true,
            allow_public_submissions: true,
            require_moderation: false,
            color: None,
        }
    }
}

/// Changes to a board's meta; only the four documented keys are read, others are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardMetaPatch {
    /// `isPublic`; `None` leaves the setting as it is.
    pub is_public: Option<bool>,
    /// `allowPublicSubmissions`; `None` leaves the setting as it is.
    pub allow_public_submissions: Option<bool>,
    /// `requireModeration`; `None` leaves the setting as it is.
    pub require_moderation: Option<bool>,
    /// `Some(None)` clears the color.
    pub color: Option<Option<String>>,
}

impl BoardMetaPatch {
    /// Reads a client's `meta`: a key absent or `null` changes nothing (but `color: null`
    /// clears the color). Refused when `meta` is not an object, a flag is not a boolean, or the
    /// color is not `#RRGGBB`; the color's error comes first.
    pub fn from_json(value: &Value) -> DomainResult<Self> {
        let Value::Object(map) = value else {
            return Err(DomainError::invalid("meta must be an object"));
        };
        let settings = Settings(map);
        // The color is checked first: its error is the one a request with several bad keys gets.
        let color = settings.color()?;
        Ok(Self {
            is_public: settings.flag("isPublic")?,
            allow_public_submissions: settings.flag("allowPublicSubmissions")?,
            require_moderation: settings.flag("requireModeration")?,
            color,
        })
    }

    fn apply(self, meta: &mut BoardMeta) {
        if let Some(v) = self.is_public {
            meta.is_public = v;
        }
        if let Some(v) = self.allow_public_submissions {
            meta.allow_public_submissions = v;
        }
        if let Some(v) = self.require_moderation {
            meta.require_moderation = v;
        }
        if let Some(v) = self.color {
            meta.color = v;
        }
    }
}

/// A feedback board as stored: a named, ordered container of the team's feedback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// Time-ordered UUID made at creation.
    pub id: BoardId,
    /// The owning team; every operation on the board is scoped to it.
    pub team_id: TeamId,
    /// Display name: 1–255 characters after trimming.
    pub name: String,
    /// Url slug: 1–100 characters of `a-z`, `0-9` and single `-` between words, unique
    /// within the team.
    pub slug: String,
    /// Free text of up to 50,000 characters; empty when not given.
    pub description: String,
    /// Display position, 0..=1,000,000; board lists are ordered by it.
    pub order: i64,
    /// Its settings: visibility, public submissions, moderation, color.
    pub meta: BoardMeta,
    /// When it was created.
    pub created_at: Timestamp,
    /// Moves only when an update really changes the board.
    pub updated_at: Timestamp,
}

/// A board as listed: with the number of feedback items on it, published or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardView {
    /// The board as stored.
    pub board: Board,
    /// `feedbackCount`: its items that are not archived, published or not.
    pub feedback_count: i64,
}

/// A validated `feedback-boards.create`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBoard {
    /// Display name, 1–255 characters after trimming.
    pub name: String,
    /// Chosen by the client; otherwise derived from the name and made unique.
    pub slug: Option<String>,
    /// Up to 50,000 characters after trimming; empty when not given.
    pub description: String,
    /// The position asked for, 0..=1,000,000; `None` puts the board after the last.
    pub order: Option<i64>,
    /// The settings given; the others keep [`BoardMeta::default`]'s values.
    pub meta: BoardMetaPatch,
}

/// The fields of `feedback-boards.create` and `.update` as a client sent them.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardFields<'a> {
    /// `name`, as sent; required at creation, never blank.
    pub name: Option<&'a str>,
    /// `slug`, as sent; must already be slug-shaped.
    pub slug: Option<&'a str>,
    /// `description`, as sent.
    pub description: Option<&'a str>,
    /// `order`, as sent; must be in 0..=1,000,000.
    pub order: Option<i64>,
    /// `meta`, as sent: an object of settings; `null` is taken as absent.
    pub meta: Option<&'a Value>,
}

impl NewBoard {
    /// Validates a `feedback-boards.create`: a missing or blank name is refused before any
    /// other field is looked at; the rest is checked as [`BoardPatch::new`] checks it.
    ///
    /// ```
    /// use sounding_domain::board::{slug_candidate, BoardFields, NewBoard};
    ///
    /// let new = NewBoard::new(BoardFields {
    ///     name: Some(" Feature Requests "),
    ///     ..BoardFields::default()
    /// })
    /// .unwrap();
    /// assert_eq!(new.name, "Feature Requests");
    /// // Without a slug of its own, the board's is derived from the name and made unique.
    /// assert_eq!(new.slug, None);
    /// assert_eq!(new.base_slug(), "feature-requests");
    /// assert_eq!(slug_candidate(&new.base_slug(), 2), "feature-requests-2");
    /// assert_eq!(
    ///     NewBoard::new(BoardFields::default()).unwrap_err().to_string(),
    ///     "name is required"
    /// );
    /// ```
    pub fn new(fields: BoardFields<'_>) -> DomainResult<Self> {
        // A missing name is reported before any other field; the rest is read as an update is.
        let name = text::required("name", fields.name, text::NAME_MAX)?;
        let fields = BoardPatch::new(BoardFields {
            name: Some(&name),
            ..fields
        })?;
        Ok(Self {
            name,
            slug: fields.slug,
            description: fields.description.unwrap_or_default(),
            order: fields.order,
            meta: fields.meta,
        })
    }

    /// The slug to try first when none was given.
    pub fn base_slug(&self) -> String {
        slug::slugify(&self.name, text::SLUG_MAX).unwrap_or_else(|| "board".to_owned())
    }

    /// The board to store: its `slug` and `order` as the caller settled them (unique, in
    /// range), [`BoardMeta::default`] changed by the settings given, a new id, and `now` as both
    /// timestamps.
    pub fn into_board(self, team_id: TeamId, slug: String, order: i64, now: Timestamp) -> Board {
        let mut meta = BoardMeta::default();
        self.meta.apply(&mut meta);
        Board {
            id: BoardId::new(),
            team_id,
            name: self.name,
            slug,
            description: self.description,
            order,
            meta,
            created_at: now,
            updated_at: now,
        }
    }
}

/// A validated `feedback-boards.update`; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardPatch {
    /// New name, 1–255 characters after trimming; a blank one is refused, not ignored.
    pub name: Option<String>,
    /// New slug, slug-shaped and at most 100 characters; the store checks it is not taken.
    pub slug: Option<String>,
    /// New description, up to 50,000 characters after trimming; may be empty.
    pub description: Option<String>,
    /// New position, 0..=1,000,000.
    pub order: Option<i64>,
    /// Settings to change; empty when `meta` was absent or `null`.
    pub meta: BoardMetaPatch,
}

impl BoardPatch {
    /// Validates a `feedback-boards.update`; absent fields stay `None`. Refused: a blank name,
    /// a slug that is not slug-shaped or longer than 100 characters, an order outside
    /// 0..=1,000,000, or a bad `meta` (see [`BoardMetaPatch::from_json`]).
    ///
    /// ```
    /// use sounding_domain::board::{BoardFields, BoardPatch};
    ///
    /// let patch = BoardPatch::new(BoardFields {
    ///     order: Some(3),
    ///     ..BoardFields::default()
    /// })
    /// .unwrap();
    /// assert_eq!((patch.order, patch.name), (Some(3), None));
    /// let refused = |fields| BoardPatch::new(fields).unwrap_err().to_string();
    /// assert_eq!(
    ///     refused(BoardFields { order: Some(1_000_001), ..BoardFields::default() }),
    ///     "order must be between 0 and 1000000"
    /// );
    /// assert_eq!(
    ///     refused(BoardFields { slug: Some("Feature Requests"), ..BoardFields::default() }),
    ///     "slug must be 1-100 characters of a-z, 0-9 and single '-' between words"
    /// );
    /// ```
    pub fn new(fields: BoardFields<'_>) -> DomainResult<Self> {
        let BoardFields {
            name,
            slug,
            description,
            order,
            meta,
        } = fields;
        Ok(Self {
            name: text::required_if_given("name", name, text::NAME_MAX)?,
            slug: slug.map(parse_board_slug).transpose()?,
            description: text::optional("description", description, text::TEXT_MAX)?,
            order: order.map(parse_order).transpose()?,
            meta: meta
                .filter(|m| !m.is_null())
                .map(BoardMetaPatch::from_json)
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// Applies the patch; `updatedAt` moves only when something changed.
    pub fn apply(self, board: &mut Board, now: Timestamp) {
        let before = board.clone();
        if let Some(name) = self.name {
            board.name = name;
        }
        if let Some(slug) = self.slug {
            board.slug = slug;
        }
        if let Some(description) = self.description {
            board.description = description;
        }
        if let Some(order) = self.order {
            board.order = order;
        }
        self.meta.apply(&mut board.meta);
        if *board != before {
            board.updated_at = now;
        }
    }
}

fn parse_board_slug(raw: &str) -> DomainResult<String> {
    let value = raw.trim();
    // The limit holds for the field as sent, blanks included (the documented maxLength).
    if value.is_empty() || raw.chars().count() > text::SLUG_MAX || !slug::is_valid_slug(value) {
        return Err(DomainError::invalid(format!(
            "slug must be 1-{} characters of a-z, 0-9 and single '-' between words",
            text::SLUG_MAX
        )));
    }
    Ok(value.to_owned())
}

fn parse_order(order: i64) -> DomainResult<i64> {
    if (0..=1_000_000).contains(&order) {
        Ok(order)
    } else {
        Err(DomainError::invalid("order must be between 0 and 1000000"))
    }
}

/// `base`, then `base-2`, `base-3`, … for slugs already taken.
pub fn slug_candidate(base: &str, attempt: u32) -> String {
    if attempt <= 1 {
        return base.to_owned();
    }
    let suffix = format!("-{attempt}");
    let keep = base.len().min(text::SLUG_MAX - suffix.len());
    format!("{}{suffix}", base[..keep].trim_end_matches('-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn named(name: &str) -> BoardFields<'_> {
        BoardFields {
            name: Some(name),
            ..BoardFields::default()
        }
    }

    #[test]
    fn meta_patch_reads_known_keys_and_checks_types() {
        let patch =
            BoardMetaPatch::from_json(&json!({"isPublic": false, "color": "#00ff00", "x": 1}))
                .unwrap();
        assert_eq!(patch.is_public, Some(false));
        assert_eq!(patch.color, Some(Some("#00FF00".into())));
        assert!(BoardMetaPatch::from_json(&json!({"isPublic": "yes"})).is_err());
        assert!(BoardMetaPatch::from_json(&json!({"color": "green"})).is_err());
    }

    #[test]
    fn new_board_derives_slug_and_defaults_meta() {
        let new = NewBoard::new(named(" Feature Requests ")).unwrap();
        assert_eq!(new.base_slug(), "feature-requests");
        let board = new.into_board(
            TeamId::new(),
            "feature-requests".into(),
            1,
            Timestamp::from_unix_seconds(0).unwrap(),
        );
        assert!(
            board.meta.is_public
                && board.meta.allow_public_submissions
                && !board.meta.require_moderation
        );
        assert!(NewBoard::new(named("")).is_err());
        assert!(NewBoard::new(BoardFields {
            slug: Some("Not A Slug"),
            ..named("x")
        })
        .is_err());
    }

    #[test]
    fn slug_candidates_stay_within_the_limit() {
        assert_eq!(slug_candidate("ideas", 1), "ideas");
        assert_eq!(slug_candidate("ideas", 3), "ideas-3");
        let long = "a".repeat(100);
        assert_eq!(slug_candidate(&long, 12).len(), 100);
    }
}
