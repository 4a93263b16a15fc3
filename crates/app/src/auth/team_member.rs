//! The team-member rule (decisions §5): a caller with the team's API key, or a subscriber
//! whose e-mail is that of a user of the team.

use sounding_domain::{access::Caller, ports::AccessStore};

use crate::error::AppResult;

pub async fn is_team_member(access: &dyn AccessStore, caller: &Caller) -> AppResult<bool> {
    match caller {
        Caller::Team(_) => Ok(true),
        Caller::Subscriber(session) => match &session.subscriber.email {
            Some(email) => Ok(access
                .user_by_email(session.subscriber.team_id, email.as_str())
                .await?
                .is_some()),
            None => Ok(false),
        },
    }
}
