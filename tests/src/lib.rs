//! Shared helpers for Sounding's black-box tests: a real server on a real TCP port, on
//! SQLite, PostgreSQL or the in-memory store (`memory://`), and a thin JSON client for its
//! operations.

pub mod bin;
pub mod client;
pub mod fixtures;
pub mod harness;
pub mod overwrite;
pub mod pg;
pub mod receiver;

pub use client::{Reply, SECRET};
pub use harness::{Engine, TestApp};

/// Generates one `#[tokio::test]` per engine for each named `async fn(TestApp)`.
/// PostgreSQL variants skip loudly when no database is configured (and fail under `CI=true`).
#[macro_export]
macro_rules! engine_tests {
    ($($name:ident),* $(,)?) => {
        $crate::engine_tests!(@on sqlite Sqlite $($name)*);
        $crate::engine_tests!(@on postgres Postgres $($name)*);
        $crate::engine_tests!(@on memory Memory $($name)*);
    };
    (@on $module:ident $engine:ident $($name:ident)*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if let Some(app) = $crate::TestApp::spawn($crate::Engine::$engine).await {
                        super::$name(app).await;
                    }
                }
            )*
        }
    };
}
