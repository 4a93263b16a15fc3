-- B0: GET /healthz on the bare actix-web baseline (crates/http-actix/examples/bench_baseline.rs).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")
wrk.method = "GET"
wrk.path = "/healthz"
