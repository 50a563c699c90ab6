package app

import (
	"context"
	"io"

	"github.com/paycli/paycli/internal/cli/completion"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/spf13/cobra"
)

// NewCommandTree builds paycli's complete command tree, as NewRootCmd does
// for a run, but with hermetic dependencies: buffered streams and an empty
// environment. It is for generators (cmd/gendocs) that read the tree and
// run nothing, so that what they write cannot depend on the machine or the
// user running them.
func NewCommandTree() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	root, _ := NewRootCmd(NewFactory(ios, func(string) (string, bool) { return "", false }))
	finishHelp(root)
	return root
}

// CompletionShells are the shells `paycli completion` writes a script for.
func CompletionShells() []string { return completion.Shells }

// WriteCompletion writes root's completion script for shell, as `paycli
// completion SHELL` does, for generators (cmd/gendocs): app is the one
// package that imports the commands.
func WriteCompletion(ctx context.Context, root *cobra.Command, shell string, w io.Writer) error {
	return completion.Write(ctx, root, shell, w)
}
