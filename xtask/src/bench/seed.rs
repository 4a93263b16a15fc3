//! Seeds a fresh database through the API the way real use fills it, then writes the ids the
//! Lua scripts draw from (one value a line) into the data directory.
//!
//! At `--scale 1`: team A, the one measured: 5 boards, 5,000 subscribers (identified, so each
//! has a token), 10,000 feedback items created by subscribers, votes and comments skewed
//! toward a few popular items, one roadmap with 4 stages and 1,000 topics, one busy topic
//! with a long thread. Teams B and C are small neighbours, so every query must filter by team. Subscribers
//! 0..4,000 author and vote; 4,000..5,000 never vote here, and are the voters of S4 and S7 and
//! the authors of S8, which posts to a sixth board of its own. `--scale N` multiplies every
//! count by N but the busy topic's thread.

use std::{collections::HashSet, fs, net::SocketAddr, path::Path, process::Command, time::Instant};

use anyhow::{bail, Context as _, Result};
use rand::{rngs::StdRng, Rng as _, SeedableRng};
use serde_json::{json, Value};

use super::http::{parallel, Client};

const SUBSCRIBERS: usize = 5_000;
/// Subscribers who author and vote in the seed; the rest vote only in the scenarios.
const SEED_VOTERS: usize = 4_000;
const FEEDBACK: usize = 10_000;
const BOARDS: usize = 5;
const TOPICS: usize = 1_000;
const FEEDBACK_COMMENTS: usize = 5_000;
const TOPIC_COMMENTS: usize = 2_000;
const BUSY_TOPIC_COMMENTS: usize = 300;
const TOPIC_VOTES: usize = 3_000;
const NEIGHBOUR_SUBSCRIBERS: usize = 100;
const NEIGHBOUR_FEEDBACK: usize = 200;
/// Shares of the feedback per board, in percent: one main board, a long tail.
const BOARD_SHARES: [u64; BOARDS] = [40, 25, 15, 12, 8];

/// What the scenarios need from the seed, and what it made.
pub struct Seeded {
    pub key: String,
    pub counts: Vec<(&'static str, usize)>,
    pub seconds: f64,
}

pub struct TeamKey {
    pub subdomain: String,
    pub key: String,
}

/// Creates the three teams with the `sounding` command line (teams have no API operation).
pub fn create_teams(bin: &Path, database_url: &str) -> Result<Vec<TeamKey>> {
    let migrate = Command::new(bin)
        .args(["migrate", "--database", database_url])
        .output()
        .context("cannot run sounding migrate")?;
    if !migrate.status.success() {
        bail!(
            "sounding migrate failed: {}",
            String::from_utf8_lossy(&migrate.stderr)
        );
    }
    ["acme", "globex", "initech"]
        .iter()
        .map(|subdomain| {
            let output = Command::new(bin)
                .args(["team", "create", "--database", database_url])
                .args(["--name", &format!("Bench {subdomain}")])
                .args(["--subdomain", subdomain, "--json"])
                .output()
                .context("cannot run sounding team create")?;
            if !output.status.success() {
                bail!(
                    "sounding team create failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            let created: Value = serde_json::from_slice(&output.stdout)
                .context("sounding team create --json printed no JSON")?;
            let key = created["apiKey"]
                .as_str()
                .context("no apiKey in sounding team create --json")?;
            Ok(TeamKey {
                subdomain: (*subdomain).to_owned(),
                key: key.to_owned(),
            })
        })
        .collect()
}

/// A fixed seed gives the same data set every run.
struct Rng(StdRng);

impl Rng {
    fn seeded(seed: u64) -> Self {
        Rng(StdRng::seed_from_u64(seed))
    }

    fn unit(&mut self) -> f64 {
        self.0.gen()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.gen_range(0..n)
    }

    /// An index in 0..n where low indices are much likelier (u³): a few items draw most of
    /// the attention, as on a real board.
    fn skewed(&mut self, n: usize) -> usize {
        ((self.unit().powi(3) * n as f64) as usize).min(n - 1)
    }

    fn weighted(&mut self, shares: &[u64]) -> usize {
        let mut roll = self.0.gen_range(0..shares.iter().sum::<u64>());
        for (i, share) in shares.iter().enumerate() {
            if roll < *share {
                return i;
            }
            roll -= share;
        }
        shares.len() - 1
    }
}

fn id(body: &Value) -> Result<String> {
    body["data"]["id"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no data.id in {body}"))
}

struct Subscriber {
    email: String,
    token: String,
}

fn identify(
    addr: SocketAddr,
    workers: usize,
    key: &str,
    emails: Vec<String>,
) -> Result<Vec<Subscriber>> {
    parallel(addr, workers, &emails, |client, email| {
        let body = client.post_ok(
            "/v1/public/subscriber.identify",
            Some(key),
            &json!({"email": email, "meta": {"plan": "pro"}}),
        )?;
        let token = body["code"].as_str().context("no code in identify")?;
        Ok(Subscriber {
            email: email.clone(),
            token: token.to_owned(),
        })
    })
}

fn create_boards(client: &mut Client, key: &str, count: usize) -> Result<Vec<String>> {
    (0..count)
        .map(|i| {
            let body = client.post_ok(
                "/v1/feedback-boards.create",
                Some(key),
                &json!({"name": format!("Board {}", i + 1)}),
            )?;
            id(&body)
        })
        .collect()
}

/// Seeds everything and writes the data files into `data_dir`.
pub fn seed(
    addr: SocketAddr,
    workers: usize,
    teams: &[TeamKey],
    data_dir: &Path,
    scale: usize,
) -> Result<Seeded> {
    let started = Instant::now();
    // Everything in proportion but the busy topic's thread: S6 then reads the same 300
    // comments at every scale, in a table that grew around them.
    let [subscriber_count, seed_voters, feedback_count, topic_count, feedback_comments, topic_comment_count, topic_vote_count, neighbour_subscribers, neighbour_feedback] =
        [
            SUBSCRIBERS,
            SEED_VOTERS,
            FEEDBACK,
            TOPICS,
            FEEDBACK_COMMENTS,
            TOPIC_COMMENTS,
            TOPIC_VOTES,
            NEIGHBOUR_SUBSCRIBERS,
            NEIGHBOUR_FEEDBACK,
        ]
        .map(|n| n * scale);
    let mut rng = Rng::seeded(0x5EED);
    let mut client = Client::new(addr);
    let main = &teams[0];
    let key = main.key.as_str();
    // Where a big seed's time goes, one line a step (is a bulk path worth it, and where?).
    let mut last = Instant::now();
    let mut lap = |what: &str| {
        eprintln!(
            "xtask bench:   seeded {what} in {:.1} s",
            last.elapsed().as_secs_f64()
        );
        last = Instant::now();
    };

    // Neighbours first, so team A's rows are not all at the start of every table.
    for team in &teams[1..] {
        let boards = create_boards(&mut client, &team.key, 1)?;
        let emails = (0..neighbour_subscribers)
            .map(|i| format!("user{i}@{}.example", team.subdomain))
            .collect();
        let subscribers = identify(addr, workers, &team.key, emails)?;
        let items: Vec<usize> = (0..neighbour_feedback).collect();
        parallel(addr, workers, &items, |client, i| {
            client.post_ok(
                "/v1/public/feedbacks.create",
                Some(&subscribers[i % subscribers.len()].token),
                &json!({"boardId": boards[0], "title": format!("Neighbour idea {i}")}),
            )
        })?;
    }
    lap("the neighbours");

    let boards = create_boards(&mut client, key, BOARDS)?;
    // S8's own board (public submissions on, as every new board): the items S8 creates, up to
    // ~100,000 a full run, stay off the boards S3 and S7 list, so later repetitions read the
    // same boards the first did.
    let s8_board = id(&client.post_ok(
        "/v1/feedback-boards.create",
        Some(key),
        &json!({"name": "S8 inbox"}),
    )?)?;
    let emails = (0..subscriber_count)
        .map(|i| format!("user{i}@acme.example"))
        .collect();
    let subscribers = identify(addr, workers, key, emails)?;
    lap("the subscribers");

    let items: Vec<(usize, usize)> = (0..feedback_count)
        .map(|i| {
            let board = rng.weighted(&BOARD_SHARES);
            (i, board * seed_voters + rng.skewed(seed_voters))
        })
        .collect();
    let feedback = parallel(addr, workers, &items, |client, (i, board_author)| {
        let (board, author) = (board_author / seed_voters, board_author % seed_voters);
        let body = client.post_ok(
            "/v1/public/feedbacks.create",
            Some(&subscribers[author].token),
            &json!({
                "boardId": boards[board],
                "title": format!("Idea number {i}: make the export faster"),
                "text": "It takes too long with many items; a progress bar would help too.",
            }),
        )?;
        id(&body)
    })?;
    lap("the feedback items");

    // Popularity: a random order of the items, drawn from with a skew.
    let mut popular: Vec<usize> = (0..feedback_count).collect();
    for i in (1..popular.len()).rev() {
        popular.swap(i, rng.below(i + 1));
    }
    let mut votes = Vec::new();
    for voter in 0..seed_voters {
        let wanted = 1 + (rng.unit().powi(2) * 14.0) as usize;
        let mut mine = HashSet::new();
        while mine.len() < wanted {
            mine.insert(popular[rng.skewed(feedback_count)]);
        }
        votes.extend(mine.into_iter().map(|item| (voter, item)));
    }
    parallel(addr, workers, &votes, |client, (voter, item)| {
        client.post_ok(
            "/v1/public/feedback-votes.create",
            Some(&subscribers[*voter].token),
            &json!({"feedbackId": feedback[*item]}),
        )
    })?;
    lap("the feedback votes");

    let comments: Vec<(usize, usize)> = (0..feedback_comments)
        .map(|_| (rng.below(seed_voters), popular[rng.skewed(feedback_count)]))
        .collect();
    parallel(addr, workers, &comments, |client, (author, item)| {
        client.post_ok(
            "/v1/public/feedback-comments.create",
            Some(&subscribers[*author].token),
            &json!({"feedbackId": feedback[*item], "text": "We need this too; our team asks every week."}),
        )
    })?;
    lap("the feedback comments");

    let roadmap = id(&client.post_ok(
        "/v1/roadmaps.create",
        Some(key),
        &json!({"name": "Product roadmap"}),
    )?)?;
    let stages = ["Ideas", "Planned", "In progress", "Done"]
        .iter()
        .map(|name| {
            id(&client.post_ok(
                "/v1/stages.create",
                Some(key),
                &json!({"roadmapId": roadmap, "name": name}),
            )?)
        })
        .collect::<Result<Vec<_>>>()?;
    let topic_items: Vec<(usize, usize)> = (0..topic_count)
        .map(|i| {
            (
                i,
                rng.below(stages.len()) * seed_voters + rng.below(seed_voters),
            )
        })
        .collect();
    let topics = parallel(addr, workers, &topic_items, |client, (i, stage_author)| {
        let (stage, author) = (stage_author / seed_voters, stage_author % seed_voters);
        id(&client.post_ok(
            "/v1/public/topics.create",
            Some(&subscribers[author].token),
            &json!({"roadmapId": roadmap, "stageId": stages[stage], "title": format!("Topic {i}: single sign-on")}),
        )?)
    })?;

    lap("the roadmap and topics");

    // The busy topic: top-level comments first, then replies to them (a third of the thread).
    let busy = &topics[0];
    let top_level = BUSY_TOPIC_COMMENTS * 2 / 3;
    let authors: Vec<usize> = (0..top_level).map(|_| rng.below(seed_voters)).collect();
    let parents = parallel(addr, workers, &authors, |client, author| {
        id(&client.post_ok(
            "/v1/public/topic-comments.create",
            Some(&subscribers[*author].token),
            &json!({"id": busy, "text": "This is the one feature we are waiting for.", "source": "widget"}),
        )?)
    })?;
    let replies: Vec<(usize, usize)> = (top_level..BUSY_TOPIC_COMMENTS)
        .map(|_| (rng.below(seed_voters), rng.skewed(parents.len())))
        .collect();
    parallel(addr, workers, &replies, |client, (author, parent)| {
        client.post_ok(
            "/v1/public/topic-comments.create",
            Some(&subscribers[*author].token),
            &json!({"id": busy, "parentId": parents[*parent], "text": "Agreed, and with SCIM please."}),
        )
    })?;
    let topic_comments: Vec<(usize, usize)> = (0..topic_comment_count)
        .map(|_| (rng.below(seed_voters), 1 + rng.skewed(topic_count - 1)))
        .collect();
    parallel(addr, workers, &topic_comments, |client, (author, topic)| {
        client.post_ok(
            "/v1/public/topic-comments.create",
            Some(&subscribers[*author].token),
            &json!({"id": topics[*topic], "text": "Any news on this one?"}),
        )
    })?;
    lap("the topic comments");
    let mut topic_votes = HashSet::new();
    while topic_votes.len() < topic_vote_count {
        topic_votes.insert((rng.below(seed_voters), rng.skewed(topic_count)));
    }
    let topic_votes: Vec<(usize, usize)> = topic_votes.into_iter().collect();
    parallel(addr, workers, &topic_votes, |client, (voter, topic)| {
        client.post_ok(
            "/v1/public/topic-votes.create",
            Some(&subscribers[*voter].token),
            &json!({"id": topics[*topic]}),
        )
    })?;
    lap("the topic votes");

    fs::create_dir_all(data_dir)?;
    let write = |name: &str, lines: &[&str]| -> Result<()> {
        let path = data_dir.join(name);
        fs::write(&path, lines.join("\n") + "\n")
            .with_context(|| format!("cannot write {}", path.display()))
    };
    write("key.txt", &[key])?;
    write(
        "board_ids.txt",
        &boards.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    write(
        "feedback_ids.txt",
        &feedback.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    write(
        "emails.txt",
        &subscribers
            .iter()
            .map(|s| s.email.as_str())
            .collect::<Vec<_>>(),
    )?;
    write(
        "voter_tokens.txt",
        &subscribers[seed_voters..]
            .iter()
            .map(|s| s.token.as_str())
            .collect::<Vec<_>>(),
    )?;
    write("busy_topic.txt", &[busy.as_str()])?;
    write("s8_board.txt", &[s8_board.as_str()])?;

    Ok(Seeded {
        key: key.to_owned(),
        counts: vec![
            ("teams", teams.len()),
            ("boards", BOARDS + 1),
            ("subscribers", subscriber_count),
            ("feedback", feedback_count),
            ("feedback votes", votes.len()),
            ("feedback comments", feedback_comments),
            ("topics", topic_count),
            ("topic comments", topic_comment_count + BUSY_TOPIC_COMMENTS),
            ("busy topic comments", BUSY_TOPIC_COMMENTS),
            ("topic votes", topic_vote_count),
            (
                "neighbour subscribers",
                neighbour_subscribers * (teams.len() - 1),
            ),
            ("neighbour feedback", neighbour_feedback * (teams.len() - 1)),
        ],
        seconds: started.elapsed().as_secs_f64(),
    })
}
