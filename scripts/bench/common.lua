-- Shared by the benchmark's wrk scripts: reading line files, giving each thread its own slice, and a JSON summary.
local common = {}

function common.lines(path)
  local items = {}
  local file = assert(io.open(path, "r"), "cannot open " .. path)
  for line in file:lines() do
    if #line > 0 then items[#items + 1] = line end
  end
  file:close()
  assert(#items > 0, path .. " is empty")
  return items
end

-- Threads are numbered in setup() so that each starts in its own slice of the list: with more items than requests,
-- no item is sent twice.
local counter = 0
function common.setup(thread)
  thread:set("thread_id", counter)
  counter = counter + 1
end

function common.summary(summary, latency)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end

return common
