-- wrk script: POST one walletPay body per request, each for a new invoice.
-- BODIES names a file of bodies, one per line (docs/perf/walletpay-bodies);
-- TOKEN is a sandbox bearer token; THREADS is wrk's -t. Thread t of T
-- sends lines t, t+T, ...; once a thread runs out it starts again, and the
-- repeats are answered as duplicates (status_code 3), so make the file
-- longer than the run and use a new one for each run. done() reports how
-- many answers were not payments (not_paid).
local counter = 0
local threads = {}

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  bodies = {}
  local n = tonumber(os.getenv("THREADS"))
  local i = 0
  for line in io.lines(os.getenv("BODIES")) do
    if i % n == id then bodies[#bodies + 1] = line end
    i = i + 1
  end
  next_body = 1
  not_paid = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
end

function request()
  local body = bodies[next_body]
  next_body = next_body % #bodies + 1
  return wrk.format(nil, nil, nil, body)
end

-- Every answer should be a payment (status_code 100); count the others.
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"status_code":100', 1, true) then
    not_paid = not_paid + 1
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("not_paid") end
  io.write(string.format("not_paid=%d ", bad))
  io.write(string.format("p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
