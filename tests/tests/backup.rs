//! `sounding backup --to` and `sounding restore --from` (issue 23), on the real binary. Nothing
//! is killed: writers keep writing through the server while the backup runs, and a server
//! started on the copy must find every write acknowledged before the backup began.

use std::{
    collections::BTreeSet,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use serde_json::{json, Value};
use sounding_tests::{
    bin::{banner_key, run_sounding as sounding, ServerProcess},
    client::op_request,
};

const FAST: [(&str, &str); 2] = [
    ("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "1000000"),
    ("SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN", "1000000"),
];

fn owner_key(server: &ServerProcess) -> String {
    banner_key(&server.stdout_with("shown once").join("\n"))
}

/// Every item title on the server, through the team's list.
async fn titles(base: &str, key: &str) -> BTreeSet<String> {
    let client = reqwest::Client::new();
    let mut found = BTreeSet::new();
    let mut offset = 0;
    loop {
        let body = json!({"limit": 100, "offset": offset});
        let page: Value = op_request(&client, base, "feedbacks.list", Some(key), &body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let items = page["data"].as_array().unwrap();
        found.extend(
            items
                .iter()
                .map(|i| i["title"].as_str().unwrap().to_owned()),
        );
        offset += 100;
        if items.len() < 100 {
            return found;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_backup_taken_while_writing_holds_every_write_acknowledged_before_it_began() {
    let dir = tempfile::tempdir().unwrap();
    let live = format!("sqlite://{}", dir.path().join("live.db").display());
    let copy = dir.path().join("copy.db");
    let server = tokio::task::block_in_place(|| ServerProcess::start(&live, &FAST));
    let key = owner_key(&server);
    let base = server.base_url.clone();

    // Four writers create items until told to stop; each title is recorded once its 200 is in.
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (base, key) = (base.clone(), key.clone());
            let (acknowledged, stop) = (acknowledged.clone(), stop.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    let title = format!("writer {w} item {n}");
                    let body = json!({"title": title});
                    let response =
                        op_request(&client, &base, "feedbacks.create", Some(&key), &body)
                            .send()
                            .await
                            .unwrap();
                    assert_eq!(response.status().as_u16(), 200);
                    acknowledged.lock().unwrap().push(title);
                    n += 1;
                }
            })
        })
        .collect();
    // Until enough writes are in (however slow the machine), then the backup starts.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while acknowledged.lock().unwrap().len() < 40 {
        assert!(
            std::time::Instant::now() < deadline,
            "the writers are stuck"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before: Vec<String> = acknowledged.lock().unwrap().clone();
    let copy_path = copy.clone();
    let live_url = live.clone();
    let out = tokio::task::spawn_blocking(move || {
        sounding(&["backup", "--to", copy_path.to_str().unwrap()], &live_url)
    })
    .await
    .unwrap();
    // Writes go on for a moment after the backup, too.
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::SeqCst);
    for writer in writers {
        writer.await.unwrap();
    }
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains("Backed up") && printed.contains("feedback items"),
        "{printed}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the copy is readable by others: {mode:o}");
    }
    // Nothing is overwritten.
    let again = sounding(&["backup", "--to", copy.to_str().unwrap()], &live);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    // A server on the copy has every write acknowledged before the backup began.
    let copy_url = format!("sqlite://{}", copy.display());
    let restored = tokio::task::block_in_place(|| ServerProcess::start(&copy_url, &FAST));
    let in_copy = titles(&restored.base_url, &key).await;
    let missing: Vec<&String> = before.iter().filter(|t| !in_copy.contains(*t)).collect();
    assert!(missing.is_empty(), "lost in the backup: {missing:?}");
    let all: BTreeSet<String> = acknowledged.lock().unwrap().iter().cloned().collect();
    assert!(in_copy.is_subset(&all), "the copy holds writes nobody made");
    let printed_count = format!("{} feedback items", in_copy.len());
    assert!(
        printed.contains(&printed_count),
        "{printed} / {printed_count}"
    );
    drop(restored);

    // Restoring over a database a server is using is refused; once it stops, the live
    // database becomes the copy (the writes after the backup are gone).
    let refused = sounding(&["restore", "--from", copy.to_str().unwrap()], &live);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("a server is using"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(titles(&base, &key).await.len() > in_copy.len());
    // Killed, not stopped: its WAL still holds committed writes, which the restore must
    // move aside with the old database rather than delete or mix in.
    let everything = titles(&base, &key).await;
    tokio::task::block_in_place(|| server.signal_and_wait("KILL"));
    let done = sounding(&["restore", "--from", copy.to_str().unwrap()], &live);
    let said = String::from_utf8_lossy(&done.stdout).into_owned();
    assert!(
        done.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(said.contains("The previous file is kept as"), "{said}");
    let back = tokio::task::block_in_place(|| ServerProcess::start(&live, &FAST));
    assert_eq!(titles(&back.base_url, &key).await, in_copy);
    drop(back);

    // The old database, moved aside with its WAL, still opens whole.
    let aside = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("live.db.before-restore-")
                && !name.ends_with("-wal")
                && !name.ends_with("-shm")
        })
        .expect("the old database kept aside");
    let old_url = format!("sqlite://{}", aside.display());
    let old = tokio::task::block_in_place(|| ServerProcess::start(&old_url, &FAST));
    assert_eq!(titles(&old.base_url, &key).await, everything);
}

#[test]
fn backup_and_restore_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("b.db");
    let to = to.to_str().unwrap();
    // PostgreSQL has its own tools; nothing is connected to.
    let pg = sounding(
        &["backup", "--to", to],
        "postgres://nobody@127.0.0.1:1/none",
    );
    assert_eq!(pg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&pg.stderr).contains("pg_dump"));
    let pg = sounding(
        &["restore", "--from", to],
        "postgres://nobody@127.0.0.1:1/none",
    );
    assert_eq!(pg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&pg.stderr).contains("pg_restore"));
    // A database that is not there, and a file that is not a backup.
    let missing = format!("sqlite://{}", dir.path().join("none.db").display());
    let out = sounding(&["backup", "--to", to], &missing);
    assert_eq!(out.status.code(), Some(1));
    assert!(!std::path::Path::new(to).exists());
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"not a database at all").unwrap();
    let target = format!("sqlite://{}", dir.path().join("t.db").display());
    let out = sounding(&["restore", "--from", junk.to_str().unwrap()], &target);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a Sounding backup"));
    assert!(
        !dir.path().join("t.db").exists(),
        "a refused restore wrote the target"
    );
}
