package redact

import "testing"

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pass@gw.example/ccpayment", "https://xxxxx@gw.example/ccpayment"},
		{"https://user@gw.example", "https://xxxxx@gw.example"},
		{"https://:p%40ss@gw.example:8443/x", "https://xxxxx@gw.example:8443/x"},
		{"https://gw.example/ccpayment", "https://gw.example/ccpayment"},
		{"https://gw.example/a@b?c=d@e#f@g", "https://gw.example/a@b?c=d@e#f@g"},
		{`Get "https://u:p@127.0.0.1:1/ccpayment/api/token": refused`, `Get "https://xxxxx@127.0.0.1:1/ccpayment/api/token": refused`},
		{"two: http://a:b@x and https://c:d@y/", "two: http://xxxxx@x and https://xxxxx@y/"},
		{"mail me at someone@example.com", "mail me at someone@example.com"},
		// PostgreSQL URLs may carry the password (and a client key's
		// passphrase) in the query, as libpq and pgx read them.
		{"postgres://db.example/paycli?password=s3cr%26t&sslmode=verify-full", "postgres://db.example/paycli?password=xxxxx&sslmode=verify-full"},
		{"postgres://ayse@db/p?sslmode=require&sslpassword=k3y", "postgres://xxxxx@db/p?sslmode=require&sslpassword=xxxxx"},
		{`at "postgres://db/p?PASSWORD=x": refused`, `at "postgres://db/p?PASSWORD=xxxxx": refused`},
		{"https://gw.example/x?mypassword=open", "https://gw.example/x?mypassword=open"},
		{`"host=db port=1 password=Sekr3t" is not a postgres:// URL`, `"host=db port=1 password=xxxxx" is not a postgres:// URL`},
		{`password='a \' b' host=db`, `password=xxxxx host=db`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzURL(f *testing.F) {
	f.Add("https://user:pass@gw.example/ccpayment")
	f.Add("x://@")
	f.Add("postgres://h/d?password=p&sslpassword=q")
	f.Fuzz(func(t *testing.T, s string) {
		got := URL(s)
		if again := URL(got); again != got {
			t.Errorf("URL is not idempotent: %q -> %q -> %q", s, got, again)
		}
	})
}
