-- The soak's wrk script (scripts/soak): a fixed rotation of valid requests and every failure class a client can cause,
-- and a check of every answer's shape against docs/errors.md#problem-body: errors are application/problem+json with a matching
-- `status`, a `code` allowed for that status and a `request_id`; successes are application/json.
--
-- Environment: SOAK_DIR (tokens.txt, hook-secret.txt), SOAK_REPORT (file the totals are appended to).

local dir = os.getenv("SOAK_DIR")
local tokens = {}
for line in io.lines(dir .. "/tokens.txt") do if #line > 0 then tokens[#tokens + 1] = line end end
local secret = io.open(dir .. "/hook-secret.txt"):read("*a"):gsub("%s+$", "")

local big = string.rep(" ", 70 * 1024)
local long = string.rep("A", 3000)

-- name, expected status (checked loosely: the shape check below is the real test), builder
local classes = {
  {"valid", function(t) return wrk.format("GET", "/v1/token-exchange", {["Authorization"] = "Bearer " .. t}) end},
  {"legacy", function(t) return wrk.format("GET", "/v1/kakao/" .. t) end},
  {"valid", function(t) return wrk.format("GET", "/v1/token-exchange", {["Authorization"] = "Bearer " .. t}) end},
  {"missing_token", function() return wrk.format("GET", "/v1/token-exchange") end},
  {"malformed_auth", function() return wrk.format("GET", "/v1/token-exchange", {["Authorization"] = "Basic dXNlcjpwYXNz"}) end},
  {"bad_token", function(t) return wrk.format("GET", "/v1/token-exchange", {["Authorization"] = "Bearer nosuch" .. t:sub(1, 20)}) end},
  {"query_token", function(t) return wrk.format("GET", "/v1/token-exchange?access_token=" .. t) end},
  {"long_token", function() return wrk.format("GET", "/v1/token-exchange", {["Authorization"] = "Bearer " .. long}) end},
  {"bad_chars", function() return wrk.format("GET", "/v1/kakao/%22%3Cscript%3E") end},
  {"unknown_route", function() return wrk.format("GET", "/v1/nothing-here") end},
  {"wrong_method", function() return wrk.format("DELETE", "/v1/token-exchange") end},
  {"hook_no_secret", function() return wrk.format("POST", "/v1/login-complete", {["Content-Type"] = "application/json"}, "{}") end},
  {"hook_bad_secret", function() return wrk.format("POST", "/v1/login-complete",
      {["Authorization"] = "Bearer not-the-secret-not-the-secret-xx", ["Content-Type"] = "application/json"}, "{}") end},
  {"hook_bad_json", function() return wrk.format("POST", "/v1/login-complete",
      {["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json"}, "{\"kakao_token\":") end},
  {"hook_deep_json", function() return wrk.format("POST", "/v1/login-complete",
      {["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json"}, string.rep("[", 200)) end},
  {"hook_bad_id_token", function(t) return wrk.format("POST", "/v1/login-complete",
      {["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json"},
      "{\"kakao_token\":\"" .. t .. "\",\"token\":\"eyJhbGciOiJSUzI1NiJ9.e30.c2ln\"}") end},
  {"oversized_body", function() return wrk.format("POST", "/v1/login-complete",
      {["Authorization"] = "Bearer " .. secret, ["Content-Type"] = "application/json"}, big) end},
  {"healthz", function() return wrk.format("GET", "/healthz") end},
}

local allowed = {
  [400] = {invalid_request = true}, [401] = {missing_token = true, invalid_kakao_token = true, kakao_app_mismatch = true,
  invalid_id_token = true, token_mismatch = true, unauthorized = true}, [404] = {not_found = true},
  [405] = {method_not_allowed = true}, [413] = {payload_too_large = true}, [429] = {rate_limited = true},
  [502] = {kakao_unavailable = true, firebase_rejected = true, firebase_unavailable = true, backend_rejected = true,
  backend_unavailable = true}, [503] = {kakao_quota_exceeded = true, not_ready = true}, [504] = {upstream_timeout = true},
}

local threads = {}
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  threads[#threads + 1] = thread
end

local n, id
ok, bad, codes, first_bad = 0, 0, {}, nil
function init(args)
  id = tonumber(wrk.thread:get("id")) or 0
  n = id * 7919
end

function request()
  n = n + 1
  local class = classes[(n % #classes) + 1]
  return class[2](tokens[(n % #tokens) + 1])
end

local function header(headers, name)
  return headers[name] or headers[name:lower()] or headers[name:gsub("^%l", string.upper)]
end

function response(status, headers, body)
  local ctype = header(headers, "Content-Type") or ""
  local good
  local key
  if status < 400 then
    good = ctype:find("^application/json") ~= nil
    key = tostring(status)
  else
    local code = body:match('"code":"([a-z_]+)"')
    local rid = body:match('"request_id":"([A-Za-z0-9._-]+)"')
    local hid = header(headers, "X-Request-ID") or header(headers, "X-Request-Id")
    good = ctype == "application/problem+json" and code ~= nil and allowed[status] ~= nil and allowed[status][code] == true
      and body:find('"status":' .. status, 1, true) ~= nil and body:find('"type":"', 1, true) ~= nil
      and body:find('"title":"', 1, true) ~= nil and body:find('"detail":"', 1, true) ~= nil
      and rid ~= nil and rid == hid
    key = status .. " " .. tostring(code)
  end
  codes[key] = (codes[key] or 0) + 1
  if good then ok = ok + 1 else
    bad = bad + 1
    if first_bad == nil then first_bad = status .. " " .. ctype .. " " .. body:sub(1, 300) end
  end
end

function done(summary, latency, requests)
  local total_ok, total_bad, all = 0, 0, {}
  local sample
  for _, thread in ipairs(threads) do
    total_ok = total_ok + thread:get("ok")
    total_bad = total_bad + thread:get("bad")
    sample = sample or thread:get("first_bad")
    for k, v in pairs(thread:get("codes")) do all[k] = (all[k] or 0) + v end
  end
  local e = summary.errors
  local report = io.open(os.getenv("SOAK_REPORT"), "a")
  report:write(string.format("requests=%d ok_shape=%d bad_shape=%d socket_errors=%d timeouts=%d p99_us=%d\n",
    summary.requests, total_ok, total_bad, e.connect + e.read + e.write, e.timeout, latency:percentile(99)))
  local keys = {}
  for k in pairs(all) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do report:write(string.format("  %-36s %d\n", k, all[k])) end
  if sample then report:write("first bad: " .. sample .. "\n") end
  report:close()
end
