-- POST /v1/login-complete as the backend sends it (step 6), rotating over the pairs the exchanges produced.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local bodies, index, headers

function init(args)
  bodies = {}
  for _, line in ipairs(common.lines(os.getenv("BENCH_PAIRS"))) do
    local kakao, id = line:match("^(%S+) (%S+)$")
    bodies[#bodies + 1] = '{"kakao_token":"' .. kakao .. '","token":"' .. id .. '"}'
  end
  local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
  index = math.floor(#bodies / threads) * thread_id
  headers = {
    ["Authorization"] = "Bearer " .. os.getenv("BENCH_HOOK_SECRET"),
    ["Content-Type"] = "application/json",
  }
end

function request()
  index = index % #bodies + 1
  return wrk.format("POST", "/v1/login-complete", headers, bodies[index])
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
