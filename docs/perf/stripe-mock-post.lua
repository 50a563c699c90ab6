-- wrk script: the stripe-mock peer of the sandbox throughput line in
-- docs/performance.md. stripe-mock is stateless: it validates the
-- parameters against Stripe's OpenAPI spec and answers a fixture.
wrk.method = "POST"
wrk.body = "amount=2000&currency=usd&source=tok_visa&description=bench"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Bearer sk_test_123"

function done(summary, latency, requests)
  io.write(string.format("p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
