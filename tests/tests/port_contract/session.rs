//! The authenticated subscriber (`subscriber_session`): the subscriber as `subscriber` finds
//! it, with team membership (`TeamUser::makes_member`: a user of its team has its e-mail) read
//! in the same statement, and seen at once when users come and go.

use std::sync::Arc;

use sounding_domain::{
    access::{Role, TeamUser},
    ids::{SubscriberId, UserId},
    ports::Store,
};

use crate::fixtures::{stored_team, subscriber, t0};

pub async fn a_session_is_the_subscriber_and_whether_a_team_user_has_its_email(
    store: Arc<dyn Store>,
) {
    let f = stored_team(&*store, "session").await;
    let other = stored_team(&*store, "session-other").await;

    // The owner's address makes a member; any other does not; another team's owner is a
    // stranger here, and a member there.
    let owner = subscriber(&*store, f.team.id, &f.owner.email).await;
    let guest = subscriber(&*store, f.team.id, "guest@session.example").await;
    let visitor = subscriber(&*store, f.team.id, &other.owner.email).await;
    for (who, member) in [(&owner, true), (&guest, false), (&visitor, false)] {
        let session = store
            .subscriber_session(f.team.id, who.id)
            .await
            .unwrap()
            .expect("a session of a stored subscriber");
        assert_eq!(
            session.subscriber,
            store.subscriber(f.team.id, who.id).await.unwrap().unwrap()
        );
        assert_eq!(session.is_team_member, member, "{}", who.name);
    }

    // Not found in another team, nor when unknown.
    for (team, id) in [(other.team.id, owner.id), (f.team.id, SubscriberId::new())] {
        assert_eq!(store.subscriber_session(team, id).await.unwrap(), None);
    }

    // A user added with the guest's address makes them a member from the next read on, and
    // removing the user undoes it.
    let user = TeamUser {
        id: UserId::new(),
        team_id: f.team.id,
        email: "guest@session.example".into(),
        name: "Guest".into(),
        role: Role::Member,
        created_at: t0(),
    };
    store.insert_user(&user).await.unwrap();
    let member = |id| {
        let store = store.clone();
        let team = f.team.id;
        async move {
            store
                .subscriber_session(team, id)
                .await
                .unwrap()
                .unwrap()
                .is_team_member
        }
    };
    assert!(member(guest.id).await);
    assert!(store.delete_user(f.team.id, user.id).await.unwrap());
    assert!(!member(guest.id).await);
}
