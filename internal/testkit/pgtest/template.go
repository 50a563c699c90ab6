package pgtest

import (
	"fmt"
	"testing"
)

// template is a database made once per server and copied by each test
// that asks for it.
type template struct {
	name  string
	ready chan struct{} // closed once made (or failed)
	err   error
}

// DatabaseFrom creates a database owned by owner, with a name unique to
// t, as a copy of the template key: a database made once per server by
// build (given the template's name, owned by owner) and then closed to
// connections, so that each test copies its schema (CREATE DATABASE …
// TEMPLATE copies its pages) rather than building it again. build must close
// every connection it opens to the template before it returns.
func (s *Server) DatabaseFrom(t testing.TB, owner, key string, build func(t testing.TB, db string)) string {
	t.Helper()
	s.mu.Lock()
	if s.templates == nil {
		s.templates = map[string]*template{}
	}
	tpl, made := s.templates[key]
	if !made {
		tpl = &template{name: fmt.Sprintf("template_%d", len(s.templates)+1), ready: make(chan struct{})}
		s.templates[key] = tpl
	}
	s.mu.Unlock()
	if !made {
		func() {
			defer close(tpl.ready)
			tpl.err = fmt.Errorf("making the template %q failed in %s", key, t.Name())
			s.OwnerRole(t, owner)
			s.Exec(t, "postgres", fmt.Sprintf("CREATE DATABASE %s OWNER %s", tpl.name, quoteIdent(owner)))
			build(t, tpl.name)
			s.Exec(t, "postgres", fmt.Sprintf("ALTER DATABASE %s WITH IS_TEMPLATE true ALLOW_CONNECTIONS false", tpl.name))
			tpl.err = nil
		}()
	}
	<-tpl.ready
	if tpl.err != nil {
		t.Fatal(tpl.err)
	}
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("test_%d", s.dbs)
	s.mu.Unlock()
	s.Exec(t, "postgres", fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s OWNER %s", name, tpl.name, quoteIdent(owner)))
	return name
}
