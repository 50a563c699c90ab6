package hashcmd

import (
	"context"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// LayoutsOptions are the inputs of `paycli hash layouts`.
type LayoutsOptions struct {
	cmdutil.Deps
}

// NewCmdLayouts builds `paycli hash layouts`.
func NewCmdLayouts(f *cmdutil.Factory, runF func(context.Context, *LayoutsOptions) error) *cobra.Command {
	opts := &LayoutsOptions{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "layouts",
		Short: "List the hash_key layouts and their fields",
		Long: `List the hash_key layouts: which fields each kind of request or callback
encrypts, in order. The plaintext is the fields' values joined by "|".

JSON: [{"name": "...", "fields": ["..."], "amounts": ["..."],
        "description": "..."}]
("amounts" are the fields compared as decimals: 100 = 100.00).`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.Run(cmd, opts, runF, layoutsRun)
		},
	}
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// layoutJSON is the JSON form of a layout; the schema is stable.
type layoutJSON struct {
	Name        string   `json:"name"`
	Fields      []string `json:"fields"`
	Amounts     []string `json:"amounts"`
	Description string   `json:"description"`
}

func layoutsRun(ctx context.Context, opts *LayoutsOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	if format == render.JSON {
		out := make([]layoutJSON, len(hashkey.Layouts))
		for i, l := range hashkey.Layouts {
			amounts := l.Amounts
			if amounts == nil {
				amounts = []string{}
			}
			out[i] = layoutJSON{Name: l.Name, Fields: l.Fields, Amounts: amounts, Description: l.Help}
		}
		return opts.JSON.Write(ctx, opts.IO.Out, out)
	}
	rows := make([][]string, len(hashkey.Layouts))
	for i, l := range hashkey.Layouts {
		rows[i] = []string{l.Name, strings.Join(l.Fields, "|"), l.Help}
	}
	if format == render.CSV || format == render.TSV {
		return render.WriteRecords(opts.IO.Out, format, []string{"name", "fields", "description"}, rows)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{1, 2}
	return render.WriteTable(opts.IO.Out, table, []string{"LAYOUT", "FIELDS", "DESCRIPTION"}, rows)
}
