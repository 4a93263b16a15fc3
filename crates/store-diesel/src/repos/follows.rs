//! Follows of a feedback item or a topic: the same operations over `feedback_follows` and
//! `topic_follows`, which differ only in the name of their target column. A macro because
//! diesel's tables and columns are distinct types with no common trait to be generic over.

/// Defines `follow`, `unfollow` and `followers` over the follows table `$follows`, whose
/// column `$target` names what is followed.
macro_rules! follows {
    ($follows:ident, $target:ident) => {
        /// Makes the subscriber follow the target unless they already do.
        pub(super) fn follow(
            conn: &mut $crate::connection::DbConnection,
            team: &str,
            target: &str,
            subscriber: &str,
            at: time::PrimitiveDateTime,
        ) -> $crate::error::DbResult<()> {
            use diesel::prelude::*;
            $crate::connection::per_backend!(conn, |inner| diesel::insert_into($follows::table)
                .values((
                    $follows::$target.eq(target),
                    $follows::subscriber_id.eq(subscriber),
                    $follows::team_id.eq(team),
                    $follows::created_at.eq(at),
                ))
                .on_conflict(($follows::$target, $follows::subscriber_id))
                .do_nothing()
                .execute(inner))?;
            Ok(())
        }

        /// Makes the subscriber stop following the target (nothing when they do not).
        pub(super) fn unfollow(
            conn: &mut $crate::connection::DbConnection,
            target: &str,
            subscriber: &str,
        ) -> $crate::error::DbResult<()> {
            use diesel::prelude::*;
            diesel::delete(
                $follows::table
                    .filter($follows::$target.eq(target))
                    .filter($follows::subscriber_id.eq(subscriber)),
            )
            .execute(conn)?;
            Ok(())
        }

        /// Who follows the team's target, the earliest first.
        pub(super) fn followers(
            conn: &mut $crate::connection::DbConnection,
            team: &str,
            target: &str,
        ) -> $crate::error::DbResult<Vec<sounding_domain::ids::SubscriberId>> {
            use diesel::prelude::*;
            $follows::table
                .filter($follows::$target.eq(target))
                .filter($follows::team_id.eq(team))
                .order(($follows::created_at.asc(), $follows::subscriber_id.asc()))
                .select($follows::subscriber_id)
                .load::<String>(conn)?
                .iter()
                .map(|raw| {
                    $crate::repos::parse_id(concat!(stringify!($follows), ".subscriber_id"), raw)
                })
                .collect()
        }
    };
}
pub(crate) use follows;
