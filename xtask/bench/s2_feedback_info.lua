-- S2: public/feedbacks.info of a random seeded item, with the team key.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")

function init(args)
  math.randomseed(os.time() + (tid or 0))
  key = read_lines("key.txt")[1]
  feedback = read_lines("feedback_ids.txt")
end

function request()
  return json_post("/v1/public/feedbacks.info", key, '{"feedbackId":"' .. pick(feedback) .. '"}')
end
