-- GET /healthz (the probe scenario): the same answer from both servers with no login work in it, so that what each costs
-- is its HTTP server's own cost per request.
package.path = os.getenv("BENCH_DIR") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup

function request()
  return wrk.format("GET", "/healthz")
end

function done(summary, latency, requests)
  common.summary(summary, latency)
end
