// Package completion implements `paycli completion`.
package completion

import (
	"context"
	"io"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/spf13/cobra"
)

// Shells lists the shells paycli writes completion scripts for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// NewCmdCompletion builds `paycli completion SHELL`.
func NewCmdCompletion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell on stdout.

  bash:       source <(paycli completion bash)
              or: paycli completion bash > /etc/bash_completion.d/paycli
  zsh:        paycli completion zsh > "${fpath[1]}/_paycli"
  fish:       paycli completion fish > ~/.config/fish/completions/paycli.fish
  powershell: paycli completion powershell | Out-String | Invoke-Expression

Bash completion needs the bash-completion package (apt install
bash-completion, dnf install bash-completion; on macOS, brew install
bash-completion@2), loaded by the shell: without it bash completes nothing
and says nothing. zsh, fish and PowerShell need nothing more.`,
		ValidArgs: Shells,
		Args:      cmdutil.ExactArgs(1, "the shell: bash, zsh, fish or powershell"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return Write(cmd.Context(), cmd.Root(), args[0], f.IOStreams.Out)
		},
	}
}

// Write writes the completion script for shell.
func Write(_ context.Context, root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return cmdutil.UsageErrorf("unknown shell %q: use bash, zsh, fish or powershell", shell)
}
