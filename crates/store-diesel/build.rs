//! Embeds `migrations` (one folder per migration, for both engines; its README says how) as
//! `$OUT_DIR/migrations.rs`, read by src/migrations.rs. In the workspace `migrations` is a
//! symbolic link to the top-level `migrations/`; a packaged crate carries the files themselves. A folder whose files do not give
//! each engine an `up` and a `down` fails the build here, not a server's start.

use std::{env, fs, path::Path};

/// The files a migration folder may hold, as (file, field of `MigrationFiles`).
const FILES: [(&str, &str); 6] = [
    ("up.sql", "up"),
    ("down.sql", "down"),
    ("up.sqlite.sql", "up_sqlite"),
    ("down.sqlite.sql", "down_sqlite"),
    ("up.postgres.sql", "up_postgres"),
    ("down.postgres.sql", "down_postgres"),
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    // Cargo scans a directory given here recursively: a migration added, removed or edited
    // reruns this script.
    println!("cargo:rerun-if-changed={}", root.display());
    let mut names: Vec<String> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.expect("a readable migrations folder"))
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = String::from("&[\n");
    for name in &names {
        let folder = root.join(name);
        check_folder(&folder);
        out.push_str(&format!("    MigrationFiles {{\n        name: {name:?},\n"));
        for (file, field) in FILES {
            let path = folder.join(file);
            if path.is_file() {
                let path = path.canonicalize().expect("a migration file's path");
                out.push_str(&format!("        {field}: Some(include_str!({path:?})),\n"));
            } else {
                out.push_str(&format!("        {field}: None,\n"));
            }
        }
        out.push_str("    },\n");
    }
    out.push(']');
    let target = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    fs::write(target, out).expect("OUT_DIR is writable");
}

/// Every file is one of `FILES`, and each engine gets an `up` and a `down`.
fn check_folder(folder: &Path) {
    for entry in fs::read_dir(folder).expect("a readable migration folder") {
        let file = entry.expect("a readable migration file").file_name();
        let file = file.to_string_lossy();
        assert!(
            FILES.iter().any(|(known, _)| *known == file),
            "{}: unknown file {file} (a migration holds {:?})",
            folder.display(),
            FILES.map(|(known, _)| known)
        );
    }
    for engine in ["sqlite", "postgres"] {
        for step in ["up", "down"] {
            assert!(
                folder.join(format!("{step}.sql")).is_file()
                    || folder.join(format!("{step}.{engine}.sql")).is_file(),
                "{}: no {step}.sql or {step}.{engine}.sql",
                folder.display()
            );
        }
    }
}
