//! The `sounding` binary: everything lives in the library's `cli` module, so this file only
//! hands over, and picks the allocator.

// A write allocates on an HTTP worker and is freed on SQLite's writer thread (and the other
// way round); glibc's malloc makes such frees slow. With jemalloc, votes and creates ran
// about a quarter faster (docs/benchmarks.md, fifteenth round).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    sounding_server::cli::main()
}
