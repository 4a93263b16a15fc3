-- S5: public/subscriber.identify of a random existing subscriber, with the team key.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

function init(args)
  math.randomseed(os.time() + (tid or 0))
  key = read_lines("key.txt")[1]
  emails = read_lines("emails.txt")
end

function request()
  return json_post("/v1/public/subscriber.identify", key, '{"email":"' .. pick(emails) .. '"}')
end
