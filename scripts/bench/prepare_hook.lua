-- The hook scenario's first half: token exchanges (steps 2-5) for BENCH_PAIRS_PER_THREAD tokens per thread, writing
-- "<kakao token> <ID token>" lines to BENCH_PAIRS_OUT.<thread>. `bench-upstreams` gives the user on line n of the
-- tokens file the Kakao id 3000000000 + n - 1, so an answer names its own token.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

local tokens, first, last, next_index, out
local first_id = 3000000000

function init(args)
  tokens = common.lines(os.getenv("BENCH_TOKENS"))
  local threads = tonumber(os.getenv("BENCH_THREADS") or "2")
  local per_thread = tonumber(os.getenv("BENCH_PAIRS_PER_THREAD"))
  first = math.floor(#tokens / threads) * thread_id + 1
  last = math.min(first + per_thread - 1, #tokens)
  next_index = first
  out = assert(io.open(os.getenv("BENCH_PAIRS_OUT") .. "." .. thread_id, "w"))
end

function request()
  local token = tokens[math.min(next_index, last)]
  next_index = next_index + 1
  return wrk.format("GET", "/v1/token-exchange", { ["Authorization"] = "Bearer " .. token })
end

function response(status, headers, body)
  local id = tonumber(body:match('"uid":"kakao:(%d+)"') or "")
  local token = id and tokens[id - first_id + 1]
  local id_token = body:match('"id_token":"([^"]+)"')
  if out and status == 200 and id_token and token then
    out:write(token, " ", id_token, "\n")
    out:flush()
  end
  if out and next_index > last then
    out:close()
    out = nil
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
