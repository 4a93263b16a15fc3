-- S6: public/topic-comments.list of the busiest topic (first page, replies included).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

function init(args)
  key = read_lines("key.txt")[1]
  body = '{"id":"' .. read_lines("busy_topic.txt")[1] .. '"}'
end

function request()
  return json_post("/v1/public/topic-comments.list", key, body)
end
