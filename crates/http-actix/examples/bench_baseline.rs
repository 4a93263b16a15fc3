//! Baseline B0 of `cargo xtask bench`: the cheapest request actix-web can answer — one route
//! returning a small JSON object, no middleware — built from the same actix-web as the server,
//! on the same allocator, so every scenario's req/s can be read as a fraction of what the
//! framework alone does here.
//!
//! `bench_baseline <ADDR>` (e.g. `127.0.0.1:0`); `BENCH_WORKERS` sets the worker count (the
//! server's `SOUNDING_WORKERS`). Prints `listening on http://<addr>` once bound.

use actix_web::{web, App, HttpResponse, HttpServer};

// The server's allocator, so B0 differs from it only in what the server does.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({ "status": "ok" }))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let mut server =
        HttpServer::new(|| App::new().route("/healthz", web::get().to(healthz))).bind(&addr)?;
    if let Some(workers) = std::env::var("BENCH_WORKERS")
        .ok()
        .and_then(|w| w.parse::<usize>().ok())
        .filter(|w| *w > 0)
    {
        server = server.workers(workers);
    }
    for bound in server.addrs() {
        println!("listening on http://{bound}");
    }
    server.run().await
}
