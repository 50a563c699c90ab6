package sandbox

import "testing"

// TestPagesParse: each page's template, parsed on first use rather than
// at start-up, parses (a mistake would panic the first request to show
// it).
func TestPagesParse(t *testing.T) {
	for name, page := range map[string]func() any{
		"challenge": func() any { return challengePage() },
		"result":    func() any { return resultPage() },
		"link":      func() any { return linkPage() },
		"link done": func() any { return linkDonePage() },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("the %s page does not parse: %v", name, r)
				}
			}()
			page()
		}()
	}
}
