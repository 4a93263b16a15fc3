//! Feedback boards: named, ordered containers of feedback, public or private.

use serde_json::Value;

use crate::{
    error::{DomainError, DomainResult},
    ids::{BoardId, TeamId},
    meta::Settings,
    slug, text,
    timestamp::Timestamp,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardMeta {
    pub is_public: bool,
    pub allow_public_submissions: bool,
    pub require_moderation: bool,
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
    pub is_public: Option<bool>,
    pub allow_public_submissions: Option<bool>,
    pub require_moderation: Option<bool>,
    /// `Some(None)` clears the color.
    pub color: Option<Option<String>>,
}

impl BoardMetaPatch {
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pub id: BoardId,
    pub team_id: TeamId,
    pub name: String,
    pub slug: String,
    pub description: String,
    pub order: i64,
    pub meta: BoardMeta,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A board as listed: with the number of feedback items on it, published or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardView {
    pub board: Board,
    pub feedback_count: i64,
}

/// A validated `feedback-boards.create`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBoard {
    pub name: String,
    /// Chosen by the client; otherwise derived from the name and made unique.
    pub slug: Option<String>,
    pub description: String,
    pub order: Option<i64>,
    pub meta: BoardMetaPatch,
}

/// The fields of `feedback-boards.create` and `.update` as a client sent them.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardFields<'a> {
    pub name: Option<&'a str>,
    pub slug: Option<&'a str>,
    pub description: Option<&'a str>,
    pub order: Option<i64>,
    pub meta: Option<&'a Value>,
}

impl NewBoard {
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
    pub name: Option<String>,
    pub slug: Option<String>,
    pub description: Option<String>,
    pub order: Option<i64>,
    pub meta: BoardMetaPatch,
}

impl BoardPatch {
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
