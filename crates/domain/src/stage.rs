//! Stages of a roadmap: ordered 1, 2, 3… without gaps, public or private, moderated or not.

use serde_json::Value;

use crate::{
    edit::Edit,
    error::{DomainError, DomainResult},
    ids::{RoadmapId, StageId, TeamId},
    meta::Settings,
    text,
    timestamp::Timestamp,
};

/// A stage's settings, shown as its `meta`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageMeta {
    /// Visible to team members only; takes no public topics.
    pub is_private: bool,
    /// New public topics are published at once even when the team moderates.
    pub disable_moderation: bool,
    /// `#RRGGBB`, upper case; `None` until set.
    pub color: Option<String>,
}

/// Changes to a stage's meta; only the three documented keys are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageMetaPatch {
    /// `meta.isPrivate`; `None` keeps the setting.
    pub is_private: Option<bool>,
    /// `meta.disableModeration`; `None` keeps the setting.
    pub disable_moderation: Option<bool>,
    /// `Some(None)` clears the color.
    pub color: Option<Option<String>>,
}

impl StageMetaPatch {
    /// Reads a client's `meta`: absent or `null` changes nothing; otherwise an object whose
    /// `isPrivate` and `disableModeration` are booleans and `color` a hex color or `null`
    /// (each absent or `null` flag is left as it is). Other keys are ignored.
    ///
    /// ```
    /// use serde_json::json;
    /// use sounding_domain::stage::{StageMeta, StageMetaPatch};
    ///
    /// let patch = StageMetaPatch::from_json(Some(&json!({
    ///     "isPrivate": true, "color": "#3b82f6", "unknown": 1
    /// })))
    /// .unwrap();
    /// // A new stage of a public roadmap, made private by its meta.
    /// let meta = patch.for_new_stage(false);
    /// assert!(meta.is_private && !meta.disable_moderation);
    /// assert_eq!(meta.color.as_deref(), Some("#3B82F6"));
    /// // Without a patch, a stage is as private as its roadmap.
    /// assert!(StageMetaPatch::default().for_new_stage(true).is_private);
    /// assert!(StageMetaPatch::from_json(Some(&json!({"isPrivate": "yes"}))).is_err());
    /// ```
    pub fn from_json(value: Option<&Value>) -> DomainResult<Self> {
        let map = match value {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(DomainError::invalid("meta must be an object")),
        };
        let settings = Settings(map);
        // The color is checked first: its error is the one a request with several bad keys gets.
        let color = settings.color()?;
        Ok(Self {
            is_private: settings.flag("isPrivate")?,
            disable_moderation: settings.flag("disableModeration")?,
            color,
        })
    }

    /// A new stage's meta: as private as its roadmap, unless the patch says otherwise.
    pub fn for_new_stage(self, roadmap_is_private: bool) -> StageMeta {
        let mut meta = StageMeta {
            is_private: roadmap_is_private,
            ..StageMeta::default()
        };
        self.apply(&mut meta);
        meta
    }

    /// Sets the settings the patch names; the others stay as they are.
    pub fn apply(self, meta: &mut StageMeta) {
        if let Some(v) = self.is_private {
            meta.is_private = v;
        }
        if let Some(v) = self.disable_moderation {
            meta.disable_moderation = v;
        }
        if let Some(v) = self.color {
            meta.color = v;
        }
    }
}

/// A step of a roadmap (such as `Planned`) holding topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Names the stage in `stages.*` and in its topics.
    pub id: StageId,
    /// The team that owns it.
    pub team_id: TeamId,
    /// The one roadmap it belongs to.
    pub roadmap_id: RoadmapId,
    /// 1–255 characters after trimming; followers see it when a topic moves here.
    pub name: String,
    /// 1-based position in the roadmap; the store keeps the sequence gapless.
    pub order: i64,
    /// Privacy, moderation and color.
    pub meta: StageMeta,
    /// When the stage was created.
    pub created_at: Timestamp,
    /// The last `stages.update` that changed or moved it.
    pub updated_at: Timestamp,
}

impl Stage {
    /// Applies a `stages.update` to the stage as stored: a new name, meta keys merged.
    /// `updatedAt` moves when either changed, or when a move was asked (the store places
    /// the stage after this).
    pub fn revise(
        &mut self,
        name: Option<String>,
        meta: StageMetaPatch,
        move_asked: bool,
        now: Timestamp,
    ) {
        let before = self.clone();
        if let Some(name) = name {
            self.name = name;
        }
        meta.apply(&mut self.meta);
        if move_asked || *self != before {
            self.updated_at = now;
        }
    }
}

/// A stage with the number of its published topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageView {
    /// The stage as stored.
    pub stage: Stage,
    /// Its published topics, for every caller (unpublished ones are not counted).
    pub topic_count: i64,
}

/// A requested position: 1 or more (positions past the end mean "last").
pub fn parse_order(order: Option<i64>) -> DomainResult<Option<i64>> {
    match order {
        Some(o) if o < 1 => Err(DomainError::invalid("order must be 1 or more")),
        other => Ok(other),
    }
}

/// A stage's name: required, trimmed, at most 255 characters.
pub fn stage_name(raw: Option<&str>) -> DomainResult<String> {
    text::required("name", raw, text::NAME_MAX)
}

/// The roadmap's stage ids in their new order after putting `id` at `position` (1-based,
/// clamped to the end; at the end when `None`). `id` may be new (an insert) or already among
/// `ordered` (a move). The stores write `order = index + 1` from this.
pub fn place(ordered: &[StageId], id: StageId, position: Option<i64>) -> Vec<StageId> {
    let mut rest: Vec<StageId> = ordered.iter().copied().filter(|s| *s != id).collect();
    let at = match position {
        Some(p) => usize::try_from(p.saturating_sub(1))
            .unwrap_or(0)
            .min(rest.len()),
        None if ordered.contains(&id) => {
            // A move without a position keeps its place.
            ordered.iter().position(|s| *s == id).unwrap_or(rest.len())
        }
        None => rest.len(),
    };
    rest.insert(at, id);
    rest
}

/// `id`'s 1-based `order` in a sequence from [`place`].
pub fn order_of(ordered: &[StageId], id: StageId) -> i64 {
    ordered
        .iter()
        .position(|s| *s == id)
        .map_or(0, |index| i64::try_from(index + 1).unwrap_or(i64::MAX))
}

/// `edit`, then the stage put at `order`: how a store runs `stages.update` with a move, so
/// that a move alone is a change too.
pub fn placed(edit: Edit<Stage>, order: i64) -> Edit<Stage> {
    Box::new(move |stage| {
        let events = edit(stage)?;
        stage.order = order;
        Ok(events)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        /// Whatever the move or insert, the result holds every stage once, the placed one at
        /// the requested position clamped to 1..=len, and the others in their old order.
        #[test]
        fn placing_keeps_every_stage_once_in_order(
            len in 0usize..12,
            pick in any::<prop::sample::Index>(),
            new in any::<bool>(),
            position in prop::option::of(any::<i64>()),
        ) {
            let ordered: Vec<StageId> = (0..len).map(|_| StageId::new()).collect();
            let id = if new || ordered.is_empty() { StageId::new() } else { ordered[pick.index(len)] };
            let placed = place(&ordered, id, position);

            let expected_len = if ordered.contains(&id) { len } else { len + 1 };
            prop_assert_eq!(placed.len(), expected_len);
            let others: Vec<StageId> = placed.iter().copied().filter(|s| *s != id).collect();
            let old_others: Vec<StageId> = ordered.iter().copied().filter(|s| *s != id).collect();
            prop_assert_eq!(others, old_others);
            let at = placed.iter().position(|s| *s == id).unwrap();
            match position {
                Some(p) => prop_assert_eq!(at as i64, (p.max(1) - 1).min(expected_len as i64 - 1)),
                None if ordered.contains(&id) => {
                    prop_assert_eq!(Some(at), ordered.iter().position(|s| *s == id))
                }
                None => prop_assert_eq!(at, len),
            }
        }
    }

    #[test]
    fn placing_inserts_moves_and_clamps() {
        let [a, b, c, d] = [
            StageId::new(),
            StageId::new(),
            StageId::new(),
            StageId::new(),
        ];
        let abc = [a, b, c];
        assert_eq!(place(&abc, d, None), vec![a, b, c, d]);
        assert_eq!(place(&abc, d, Some(1)), vec![d, a, b, c]);
        assert_eq!(place(&abc, d, Some(99)), vec![a, b, c, d]);
        assert_eq!(place(&abc, c, Some(1)), vec![c, a, b]);
        assert_eq!(place(&abc, a, Some(2)), vec![b, a, c]);
        assert_eq!(place(&abc, b, None), vec![a, b, c]);
        assert_eq!(place(&[], a, Some(5)), vec![a]);
        // Out-of-range positions clamp rather than overflow.
        assert_eq!(place(&abc, d, Some(i64::MIN)), vec![d, a, b, c]);
        assert_eq!(place(&abc, d, Some(i64::MAX)), vec![a, b, c, d]);
    }

    #[test]
    fn meta_patch_reads_the_three_keys() {
        let patch = StageMetaPatch::from_json(Some(&json!({
            "isPrivate": true, "color": "#abcdef", "other": 1
        })))
        .unwrap();
        let mut meta = StageMeta::default();
        patch.apply(&mut meta);
        assert!(meta.is_private && !meta.disable_moderation);
        assert_eq!(meta.color.as_deref(), Some("#ABCDEF"));
        assert!(StageMetaPatch::from_json(Some(&json!({"isPrivate": 1}))).is_err());
        assert_eq!(
            parse_order(Some(0)),
            Err(DomainError::invalid("order must be 1 or more"))
        );
    }
}
