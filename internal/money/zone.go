package money

import "time"

// GatewayZone is the gateway's local time, in which it writes moments
// without a zone ("2026-11-22 19:35:03"): Türkiye, UTC+3 all year since
// 2016. The client reads its answers in it and the emulator writes them in
// it (docs/protocol.md, Times).
func GatewayZone() *time.Location { return time.FixedZone("TRT", 3*60*60) }
