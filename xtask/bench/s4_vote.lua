-- S4: public/feedback-votes.create, each request a voter and item that never voted together
-- (a repeat would be a 409 and measure the refusal, not the write).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

function init(args)
  voters = read_lines("voter_tokens.txt")
  feedback = read_lines("feedback_ids.txt")
end

function request()
  local voter, fb = next_vote_pair(#voters, #feedback)
  return json_post("/v1/public/feedback-votes.create", voters[voter],
    '{"feedbackId":"' .. feedback[fb] .. '"}')
end
