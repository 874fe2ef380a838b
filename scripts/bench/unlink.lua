-- Kakao's unlink webhook (the unlink scenario): GET /v1/kakao/unlink for a new Kakao user each time, with the admin key.
-- The backend stand-in's unlink URL fails, so each event is recorded, answered 200 and left pending in the store.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local next_id

function init(args)
  next_id = 7000000000 + thread_id * 100000000
end

function request()
  next_id = next_id + 1
  return wrk.format("GET", "/v1/kakao/unlink?app_id=424242&user_id=" .. next_id .. "&referrer_type=UNLINK_FROM_APPS",
    { ["Authorization"] = "KakaoAK 0123456789abcdef0123456789abcdef" })
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
