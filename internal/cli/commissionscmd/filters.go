package commissionscmd

import (
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
)

// checkFilters refuses a filter that names what the gateway's table does
// not have (exit 2, with what it has): an --installments item none of
// whose counts it lists, a --program no card program's name contains. A
// filter that names what exists but matches nothing together with the
// others is no error; commissionsRun says so.
func checkFilters(opts *Options, s commission.Schedule, currency string) error {
	if opts.Installments != nil {
		counts := s.Installments()
		listed := map[int]bool{}
		for _, n := range counts {
			listed[n] = true
		}
		if none := cmdutil.UnofferedInstallments(opts.InstallmentsText, func(n int) bool { return listed[n] }); len(none) > 0 {
			return cmdutil.UsageHint(fmt.Errorf("invalid --installments: the gateway's %s table lists no installment count %s", currency, strings.Join(none, ", ")),
				"It lists "+cmdutil.CountList(counts)+".")
		}
	}
	var unknown []string
	for _, p := range opts.Programs {
		rows, _, err := commission.Rows(s, commission.Filter{Programs: []string{p}}, nil)
		if err == nil && len(rows) == 0 {
			unknown = append(unknown, fmt.Sprintf("%q", p))
		}
	}
	if len(unknown) > 0 {
		return cmdutil.UsageHint(fmt.Errorf("invalid --program: no card program's name in the gateway's %s table contains %s", currency, cmdutil.JoinAnd(unknown)),
			"Its programs: "+strings.Join(programsOf(s), ", ")+".")
	}
	return nil
}

// programsOf is the card programs the table names, in the matrix's
// order, each once whatever its case.
func programsOf(s commission.Schedule) []string {
	rows, _, _ := commission.Rows(s, commission.Filter{}, nil)
	seen := map[string]bool{}
	var names []string
	for _, r := range rows {
		p := r.Program()
		if p == "" || seen[strings.ToLower(p)] {
			continue
		}
		seen[strings.ToLower(p)] = true
		names = append(names, p)
	}
	commission.SortPrograms(names)
	return names
}
