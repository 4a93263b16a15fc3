//! Tags: short, coloured labels the team puts on feedback items. A tag's name is unique in its
//! team regardless of case; deleting a tag takes it off every item.

use crate::{
    error::{DomainError, DomainResult},
    ids::{TagId, TeamId},
    text,
    timestamp::Timestamp,
};

/// The longest tag name, in characters after trimming (decisions §2).
pub const NAME_MAX: usize = 50;
/// The colour of a tag created without one.
pub const DEFAULT_COLOR: &str = "#3B82F6";
/// The most tags `feedbacks.update {tagIds}` may put on one item.
pub const MAX_PER_FEEDBACK: usize = 100;

/// A label the team puts on feedback items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Names the tag in `tags.*` and in `feedbacks.update {tagIds}`.
    pub id: TagId,
    /// The team that owns it.
    pub team_id: TeamId,
    /// 1–50 characters after trimming; unique in the team ignoring case ([`name_key`]).
    pub name: String,
    /// `#RRGGBB`, upper case.
    pub color: String,
    /// When the tag was created.
    pub created_at: Timestamp,
    /// The last rename or recolour.
    pub updated_at: Timestamp,
}

impl Tag {
    /// The tag `tags.create` makes of a validated input.
    pub fn new(team_id: TeamId, input: NewTag, now: Timestamp) -> Self {
        Self {
            id: TagId::new(),
            team_id,
            name: input.name,
            color: input.color,
            created_at: now,
            updated_at: now,
        }
    }

    /// The key the name is unique under in its team.
    pub fn name_key(&self) -> String {
        name_key(&self.name)
    }

    /// The tag as shown on a feedback item.
    pub fn as_ref(&self) -> TagRef {
        TagRef {
            id: self.id,
            name: self.name.clone(),
            color: self.color.clone(),
        }
    }
}

/// A tag as shown on a feedback item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagRef {
    /// What `feedbacks.update {tagIds}` names the tag by.
    pub id: TagId,
    /// The name as it is now: a rename shows on the item's next read.
    pub name: String,
    /// `#RRGGBB`, upper case.
    pub color: String,
}

/// The case-insensitive key of a name (Unicode lowercase), computed here so both engines and
/// the in-memory store fold case the same way.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// The order tags are shown in: by name ignoring case, then by name, then by id. Applied in
/// code rather than SQL so the engines' collations cannot disagree.
///
/// ```
/// use sounding_domain::tag::{sort_tags, TagRef, DEFAULT_COLOR};
/// use sounding_domain::TagId;
///
/// let tag = |name: &str| TagRef {
///     id: TagId::new(),
///     name: name.into(),
///     color: DEFAULT_COLOR.into(),
/// };
/// let mut tags = vec![tag("beta"), tag("Alpha"), tag("alpha"), tag("Gamma")];
/// sort_tags(&mut tags);
/// let names: Vec<&str> = tags.iter().map(|t| t.name.as_str()).collect();
/// // Case is ignored first; only a tie on it is broken by the name itself.
/// assert_eq!(names, ["Alpha", "alpha", "beta", "Gamma"]);
/// ```
pub fn sort_tags(tags: &mut [TagRef]) {
    tags.sort_by(|a, b| {
        name_key(&a.name)
            .cmp(&name_key(&b.name))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// The same order for whole tags.
pub fn sort_full(tags: &mut [Tag]) {
    tags.sort_by(|a, b| {
        a.name_key()
            .cmp(&b.name_key())
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.id.cmp(&b.id))
    });
}

fn parse_name(raw: Option<&str>) -> DomainResult<String> {
    text::required("name", raw, NAME_MAX)
}

fn parse_color(raw: &str) -> DomainResult<String> {
    text::color("color", raw.trim())
}

/// A validated `tags.create`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTag {
    /// Trimmed, 1–50 characters.
    pub name: String,
    /// `#RRGGBB` upper case; [`DEFAULT_COLOR`] when not given.
    pub color: String,
}

impl NewTag {
    /// Validates `tags.create`: `name` required, `color` a hex color when given.
    ///
    /// ```
    /// use sounding_domain::tag::NewTag;
    /// use sounding_domain::DomainError;
    ///
    /// let tag = NewTag::new(Some(" Bug "), Some("#ff00aa")).unwrap();
    /// assert_eq!((tag.name.as_str(), tag.color.as_str()), ("Bug", "#FF00AA"));
    /// assert_eq!(NewTag::new(Some("Bug"), None).unwrap().color, "#3B82F6");
    /// assert_eq!(
    ///     NewTag::new(Some(&"x".repeat(51)), None),
    ///     Err(DomainError::invalid("name must be at most 50 characters"))
    /// );
    /// ```
    pub fn new(name: Option<&str>, color: Option<&str>) -> DomainResult<Self> {
        Ok(Self {
            name: parse_name(name)?,
            color: match color {
                Some(raw) => parse_color(raw)?,
                None => DEFAULT_COLOR.to_owned(),
            },
        })
    }
}

/// A validated `tags.update`; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagPatch {
    /// A new name: trimmed, 1–50 characters.
    pub name: Option<String>,
    /// A new colour: `#RRGGBB`, upper case.
    pub color: Option<String>,
}

impl TagPatch {
    /// Validates `tags.update`: a name, when given, may not be blank.
    pub fn new(name: Option<&str>, color: Option<&str>) -> DomainResult<Self> {
        Ok(Self {
            name: name.map(|n| parse_name(Some(n))).transpose()?,
            color: color.map(parse_color).transpose()?,
        })
    }

    /// Applies the patch; `updatedAt` moves only when something changed.
    pub fn apply(self, tag: &mut Tag, now: Timestamp) {
        let before = tag.clone();
        if let Some(name) = self.name {
            tag.name = name;
        }
        if let Some(color) = self.color {
            tag.color = color;
        }
        if *tag != before {
            tag.updated_at = now;
        }
    }
}

/// The ids of `feedbacks.update {tagIds}`: each a UUID (400 naming `tagIds` otherwise),
/// duplicates dropped, at most [`MAX_PER_FEEDBACK`].
pub fn parse_tag_ids(raw: &[String]) -> DomainResult<Vec<TagId>> {
    let mut ids: Vec<TagId> = Vec::with_capacity(raw.len());
    for value in raw {
        let id = TagId::parse("tagIds", value)
            .map_err(|_| DomainError::invalid("tagIds must be a list of UUIDs"))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() > MAX_PER_FEEDBACK {
        return Err(DomainError::invalid(format!(
            "tagIds must hold at most {MAX_PER_FEEDBACK} tags"
        )));
    }
    Ok(ids)
}

/// The message of a name clash: 409 naming the name.
pub fn name_taken(name: &str) -> DomainError {
    DomainError::Conflict(format!("A tag named {name} already exists"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_required_and_bounded_and_colors_default() {
        assert_eq!(
            NewTag::new(Some("  "), None),
            Err(DomainError::invalid("name is required"))
        );
        assert_eq!(
            NewTag::new(Some(&"x".repeat(51)), None),
            Err(DomainError::invalid("name must be at most 50 characters"))
        );
        let tag = NewTag::new(Some(" Bug "), None).unwrap();
        assert_eq!((tag.name.as_str(), tag.color.as_str()), ("Bug", "#3B82F6"));
        assert_eq!(
            NewTag::new(Some("Bug"), Some("#ff00aa")).unwrap().color,
            "#FF00AA"
        );
        assert_eq!(
            NewTag::new(Some("Bug"), Some("red")),
            Err(DomainError::invalid(
                "color must be a hex color like #3B82F6"
            ))
        );
    }

    #[test]
    fn a_patch_changes_only_what_it_names() {
        let now = Timestamp::from_unix_seconds(10).unwrap();
        let mut tag = Tag::new(
            TeamId::new(),
            NewTag::new(Some("Bug"), None).unwrap(),
            Timestamp::from_unix_seconds(1).unwrap(),
        );
        TagPatch::new(None, Some("#000000"))
            .unwrap()
            .apply(&mut tag, now);
        assert_eq!((tag.name.as_str(), tag.color.as_str()), ("Bug", "#000000"));
        assert_eq!(tag.updated_at, now);
        assert!(TagPatch::new(Some(""), None).is_err());
    }

    #[test]
    fn tag_ids_are_uuids_deduplicated_and_bounded() {
        let a = TagId::new();
        let ids = parse_tag_ids(&[a.to_string(), a.to_string()]).unwrap();
        assert_eq!(ids, vec![a]);
        assert_eq!(
            parse_tag_ids(&["nope".into()]),
            Err(DomainError::invalid("tagIds must be a list of UUIDs"))
        );
        let many: Vec<String> = (0..101).map(|_| TagId::new().to_string()).collect();
        assert!(parse_tag_ids(&many).is_err());
        assert!(parse_tag_ids(&[]).unwrap().is_empty());
    }

    #[test]
    fn tags_sort_by_name_ignoring_case() {
        let tag = |name: &str| TagRef {
            id: TagId::new(),
            name: name.into(),
            color: DEFAULT_COLOR.into(),
        };
        let mut tags = vec![tag("beta"), tag("Alpha"), tag("alpha2"), tag("Gamma")];
        sort_tags(&mut tags);
        let names: Vec<&str> = tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Alpha", "alpha2", "beta", "Gamma"]);
    }
}
