-- S8: public/feedbacks.create, a subscriber posting a new item to the seed's "S8 inbox" board
-- (a new board takes public submissions; kept apart so S3 and S7 list the same boards in every
-- repetition however many items S8 adds). The tokens rotate through the voters, so no one
-- subscriber carries the run (the bench raises the per-subscriber limit, but a real widget
-- spreads over many people); titles differ per thread and request, as real ideas do.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

local created = 0

function init(args)
  math.randomseed(os.time() + (tid or 0))
  board = read_lines("s8_board.txt")[1]
  voters = read_lines("voter_tokens.txt")
end

function request()
  created = created + 1
  local token = voters[(created + (tid or 0) * 101) % #voters + 1]
  return json_post("/v1/public/feedbacks.create", token,
    '{"boardId":"' .. board .. '","title":"Bench idea ' .. (tid or 0) .. '-' .. created
      .. '-' .. math.random(1000000) .. '"}')
end
