package app

import "github.com/spf13/cobra"

const exitCodesHelp = `paycli's exit codes are part of its interface: scripts may branch on them.

  0    success (also: a lookup that found no data)
  1    unexpected error
  2    usage error: bad flag, argument, input file or missing configuration;
       nothing was sent
  3    authentication failed (HTTP 401, or status_code 30)
  4    the gateway rejected the request (a status_code other than 100 and not
       listed below)
  5    payment declined (status_code 41 and other decline codes)
  6    duplicate invoice (status_code 3 or 117): this call charged nothing
  7    outcome unknown (status_code 69, or the connection failed after a
       walletPay was sent): reconcile with 'paycli status --invoice ID'
  8    gateway unreachable or unavailable (connection refused, timeout, 5xx)
       for a call that was safe
  130  interrupted (Ctrl-C)

Errors are printed on stderr, as one line saying what failed and, where it
helps, a second saying what to do next.`

// newExitCodesTopic is `paycli help exit-codes`: a help topic, not a command.
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What paycli's exit codes mean",
		Long:  exitCodesHelp,
	}
}
