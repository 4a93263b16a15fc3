-- S7: a widget's mixed traffic: 40 % identify, 40 % top-20 list, 15 % vote, 4 % comment,
-- 1 % create. Votes use never-used (voter, item) pairs as in S4.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

local created = 0

function init(args)
  math.randomseed(os.time() + (tid or 0))
  key = read_lines("key.txt")[1]
  emails = read_lines("emails.txt")
  boards = read_lines("board_ids.txt")
  voters = read_lines("voter_tokens.txt")
  feedback = read_lines("feedback_ids.txt")
end

function request()
  local roll = math.random(100)
  if roll <= 40 then
    return json_post("/v1/public/subscriber.identify", key, '{"email":"' .. pick(emails) .. '"}')
  elseif roll <= 80 then
    return json_post("/v1/public/feedbacks.list", key,
      '{"boardId":"' .. pick(boards) .. '","sortBy":"top","limit":20}')
  elseif roll <= 95 then
    local voter, fb = next_vote_pair(#voters, #feedback)
    return json_post("/v1/public/feedback-votes.create", voters[voter],
      '{"feedbackId":"' .. feedback[fb] .. '"}')
  elseif roll <= 99 then
    return json_post("/v1/public/feedback-comments.create", pick(voters),
      '{"feedbackId":"' .. pick(feedback) .. '","text":"Same here, this would help us a lot."}')
  else
    created = created + 1
    return json_post("/v1/public/feedbacks.create", pick(voters),
      '{"boardId":"' .. pick(boards) .. '","title":"Bench idea ' .. (tid or 0) .. '-' .. created
        .. '","text":"Created by the S7 mixed flow."}')
  end
end
