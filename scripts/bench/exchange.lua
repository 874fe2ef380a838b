-- GET /v1/token-exchange, rotating `Authorization: Bearer` over BENCH_TOKENS (one Kakao token per line). BENCH_PATH
-- sends the same requests elsewhere: the wait scenario's floor calls the Kakao stand-in's token-info path directly.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local tokens, index
local path = os.getenv("BENCH_PATH") or "/v1/token-exchange"

function init(args)
  tokens = common.lines(os.getenv("BENCH_TOKENS"))
  local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
  index = math.floor(#tokens / threads) * thread_id
end

function request()
  index = index % #tokens + 1
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. tokens[index] })
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
