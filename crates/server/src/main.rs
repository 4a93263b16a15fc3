//! The `sounding` binary: everything lives in the library's `cli` module, so this file only
//! hands over.

fn main() -> std::process::ExitCode {
    sounding_server::cli::main()
}
