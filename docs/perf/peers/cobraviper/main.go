//go:build perfpeers

// Command cobraviper is the bare cobra+viper peer of the start-up
// comparison in docs/performance.md: a root command with one subcommand
// that reads one setting through viper, at the versions paycli's go.mod
// pins. It is what any cobra+viper CLI pays before doing its own work, and
// is built only by docs/perf/run.sh (go build -tags perfpeers).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func main() {
	v := viper.New()
	v.SetEnvPrefix("PEER")
	v.AutomaticEnv()
	v.SetDefault("output", "table")
	root := &cobra.Command{Use: "peer", Short: "a bare cobra+viper command line"}
	root.PersistentFlags().StringP("output", "o", "table", "output format")
	_ = v.BindPFlag("output", root.PersistentFlags().Lookup("output"))
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "print the version",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "peer version 0.0.0 (%s)\n", v.GetString("output"))
			return err
		},
	})
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
