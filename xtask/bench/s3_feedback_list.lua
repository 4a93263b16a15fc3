-- S3: public/feedbacks.list, the top 20 of a random board, with the team key.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

function init(args)
  math.randomseed(os.time() + (tid or 0))
  key = read_lines("key.txt")[1]
  boards = read_lines("board_ids.txt")
end

function request()
  return json_post("/v1/public/feedbacks.list", key,
    '{"boardId":"' .. pick(boards) .. '","sortBy":"top","limit":20}')
end
