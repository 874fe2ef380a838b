-- GET /v1/token-exchange with Kakao ID tokens (the oidc scenario): rotating `Authorization: Bearer` over BENCH_ID_TOKENS
-- (one ID token per line, each of another user), each thread from its own slice.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local tokens, index

function init(args)
  tokens = common.lines(os.getenv("BENCH_ID_TOKENS"))
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
