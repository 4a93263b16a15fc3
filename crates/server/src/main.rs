//! The `sounding` binary: everything lives in the library's `cli` module, so this file only
//! hands over, and picks the allocator.

// Measured against glibc's malloc: creates up to a tenth faster, identify about 5 %, the rest
// within a few percent, for 3 MB of RSS (docs/benchmarks.md, fifteenth round). Writes allocate
// on an HTTP worker and free on SQLite's writer thread, the likely reason; not profiled.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    sounding_server::cli::main()
}
