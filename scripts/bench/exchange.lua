-- GET /v1/token-exchange, rotating `Authorization: Bearer` over BENCH_TOKENS (one Kakao token per line).
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local tokens, index

function init(args)
  tokens = common.lines(os.getenv("BENCH_TOKENS"))
  local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
  index = math.floor(#tokens / threads) * thread_id
end

function request()
  index = index % #tokens + 1
  return wrk.format("GET", "/v1/token-exchange", { ["Authorization"] = "Bearer " .. tokens[index] })
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
