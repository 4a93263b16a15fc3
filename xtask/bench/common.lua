-- Shared by every scenario script of `cargo xtask bench` (loaded with dofile by each).
-- The harness passes everything through the environment, read once per Lua state:
--   BENCH_DATA      directory of the seeded ids (one value a line; see xtask/src/bench/seed.rs)
--   BENCH_PAUSE_MS  pause before each request on a connection: paced (half-load) runs only
--   BENCH_CURSOR    first unused slot of the (voter, feedback) pairs, so votes never repeat
-- and reads one line, `BENCH_RESULT {json}`, from `done` on stdout.

data_dir = os.getenv("BENCH_DATA") or "."
local pause_ms = tonumber(os.getenv("BENCH_PAUSE_MS") or "0") or 0
cursor = tonumber(os.getenv("BENCH_CURSOR") or "0") or 0

function read_lines(name)
  local lines = {}
  for line in io.lines(data_dir .. "/" .. name) do
    if #line > 0 then lines[#lines + 1] = line end
  end
  return lines
end

function pick(list)
  return list[math.random(#list)]
end

-- Numbers the threads so each derives its own vote pairs (setup runs in the main state).
local threads_seen = 0
function setup(thread)
  thread:set("tid", threads_seen)
  threads_seen = threads_seen + 1
end

function json_post(path, token, body)
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }, body)
end

-- The n-th vote of this thread as a (voter index, feedback index), 1-based, unique for the
-- whole run as long as BENCH_CURSOR moves past every slot an earlier run could have used:
-- slot k gives voter k mod V and feedback (k div V + voter) mod F, so two slots with the same
-- voter differ in k div V and hence in feedback (for fewer than V*F slots).
local votes_cast = 0
function next_vote_pair(voters, feedback)
  local threads = tonumber(os.getenv("BENCH_THREADS") or "1") or 1
  local k = cursor + votes_cast * threads + (tid or 0)
  votes_cast = votes_cast + 1
  local voter = k % voters
  local fb = (math.floor(k / voters) + voter) % feedback
  return voter + 1, fb + 1
end

-- A pause only in paced runs: wrk checks for `delay` once, after loading the script.
if pause_ms > 0 then
  function delay()
    return pause_ms
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,'
      .. '"p50_us":%.0f,"p99_us":%.0f,"max_us":%.0f}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
