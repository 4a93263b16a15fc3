-- S1: GET /healthz through the full middleware stack of the server.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")
wrk.method = "GET"
wrk.path = "/healthz"
