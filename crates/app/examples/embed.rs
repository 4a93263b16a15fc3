//! Sounding inside another program, without its HTTP server: the use cases wired to a store,
//! called the way the HTTP adapter calls them.
//!
//! ```sh
//! cargo run -p sounding-app --example embed                       # in memory
//! cargo run -p sounding-app --example embed -- --sqlite feedback.db   # in a SQLite file
//! ```
//!
//! It creates a team, a board and three subscribers, lets them post and vote, and prints the
//! board's top list.

use std::sync::Arc;

use sounding_app::{
    auth::{authenticate, Credential},
    boards::{create_board, BoardInput},
    feedback::{
        create_public_feedback, list_public_feedback, FeedbackListInput, PublicFeedbackInput,
    },
    feedback_votes::cast_vote,
    subscribers::{identify_subscriber, IdentifySubscriber},
    teams::{create_team, NewTeam},
};
use sounding_domain::{
    access::{Caller, KeyHolder, SubscriberSession},
    ports::{Clock, Store},
    Timestamp,
};
use sounding_http_actix::JwtCodec;
use sounding_store_diesel::DieselStore;
use sounding_store_memory::MemoryStore;

/// The clock the use cases read: the system's.
struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_offset(time::OffsetDateTime::now_utc())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // Any implementation of the ports will do: memory here, or the SQLite (or PostgreSQL)
    // store the server uses.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let store: Arc<dyn Store> = match args.as_slice() {
        [flag, path] if flag == "--sqlite" => {
            let url = format!("sqlite://{path}");
            let store = tokio::task::spawn_blocking(move || DieselStore::connect(&url)).await??;
            store.migrate().await?;
            Arc::new(store)
        }
        [] => Arc::new(MemoryStore::new()),
        _ => anyhow::bail!("usage: embed [--sqlite PATH]"),
    };
    let clock = SystemClock;
    // Subscriber tokens are signed JWTs; any secret of 32 bytes or more.
    let tokens = JwtCodec::new(b"an example secret of at least 32 bytes")?;

    // A team, and its owner's key: what `sounding team create` does.
    let subdomain = format!("acme-{}", std::process::id());
    let team = create_team(&*store, &clock, NewTeam::new("Acme", subdomain)).await?;
    let owner = match as_caller(&store, &tokens, team.secret.expose()).await? {
        Caller::Team(holder) => holder,
        _ => anyhow::bail!("an API key authenticates a team"),
    };

    let board = create_board(
        &*store,
        &clock,
        &owner,
        BoardInput {
            name: Some("Ideas".into()),
            ..BoardInput::default()
        },
    )
    .await?;
    let board_id = board.board.id.to_string();

    // Three end users; each posts one idea, and votes go to the ideas they like.
    let ana = subscriber(&store, &tokens, &owner, "ana@example.com").await?;
    let ben = subscriber(&store, &tokens, &owner, "ben@example.com").await?;
    let cy = subscriber(&store, &tokens, &owner, "cy@example.com").await?;
    let mut ideas = Vec::new();
    for (author, title) in [
        (&ana, "Dark mode"),
        (&ben, "CSV export"),
        (&cy, "Slack alerts"),
    ] {
        let input = PublicFeedbackInput {
            title: Some(title.into()),
            board_id: Some(board_id.clone()),
            ..PublicFeedbackInput::default()
        };
        let item = create_public_feedback(&*store, &clock, author, input).await?;
        ideas.push(item.feedback.id.to_string());
    }
    for (voter, idea) in [(&ben, 0), (&cy, 0), (&ana, 1), (&cy, 1), (&ana, 2)] {
        cast_vote(&*store, &clock, voter, Some(&ideas[idea])).await?;
    }
    // A second vote by the same subscriber is refused (409) and changes nothing.
    assert!(cast_vote(&*store, &clock, &ben, Some(&ideas[0]))
        .await
        .is_err());

    // The board's top list, as a visitor of the public widget sees it.
    let top = list_public_feedback(
        &*store,
        &clock,
        &Caller::Team(owner),
        FeedbackListInput {
            sort_by: Some("top".into()),
            board_id: Some(board_id),
            ..FeedbackListInput::default()
        },
    )
    .await?
    .items;
    println!("Top ideas on board Ideas ({} in all):", top.total);
    for view in &top.items {
        let author = view.creator.as_ref().map_or("?", |c| c.name.as_str());
        println!(
            "  {} votes  {}  (by {author})",
            view.vote_count, view.feedback.title
        );
    }
    Ok(())
}

/// Who `credential` is, as the HTTP adapter asks on every request.
async fn as_caller(
    store: &Arc<dyn Store>,
    tokens: &JwtCodec,
    credential: &str,
) -> anyhow::Result<Caller> {
    let credential = Credential::Bearer(credential.to_owned());
    Ok(authenticate(&**store, &**store, tokens, &SystemClock, &credential).await?)
}

/// Identifies an end user (as a team's back end does when the user opens its widget) and
/// authenticates with the token that gives.
async fn subscriber(
    store: &Arc<dyn Store>,
    tokens: &JwtCodec,
    owner: &KeyHolder,
    email: &str,
) -> anyhow::Result<SubscriberSession> {
    let input = IdentifySubscriber {
        email: Some(email.into()),
        ..IdentifySubscriber::default()
    };
    let identified = identify_subscriber(&**store, tokens, &SystemClock, owner, input).await?;
    match as_caller(store, tokens, &identified.token).await? {
        Caller::Subscriber(session) => Ok(session),
        _ => anyhow::bail!("a subscriber token authenticates a subscriber"),
    }
}
