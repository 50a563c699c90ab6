// Package completion implements `paycli completion`.
package completion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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

Bash completion works in a plain bash, with or without the bash-completion
package (where it is loaded, its functions complete file names). zsh, fish
and PowerShell need nothing more.

Currencies are offered as the gateway takes them: with nothing typed, TRY,
USD and EUR; with a letter or two typed, those first, then the other ISO
4217 codes.`,
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
		return writeBash(root, w)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return cmdutil.UsageErrorf("unknown shell %q: use bash, zsh, fish or powershell", shell)
}

// writeBash writes cobra's bash completion with what it takes from the
// bash-completion package (_get_comp_words_by_ref, _filedir) made
// optional: without the package, which minimal systems and containers
// lack, every Tab would print "_get_comp_words_by_ref: command not found".
// The package's functions are still used where it is loaded.
func writeBash(root *cobra.Command, w io.Writer) error {
	var b bytes.Buffer
	if err := root.GenBashCompletionV2(&b, true); err != nil {
		return err
	}
	name := root.Name()
	script := b.String()
	initFunc := fmt.Sprintf("__%s_init_completion()\n", name)
	wordsCall := "    _get_comp_words_by_ref \"$@\" cur prev words cword\n"
	if !strings.Contains(script, initFunc) || !strings.Contains(script, wordsCall) || !strings.Contains(script, "_filedir") {
		return errors.New("cobra's bash completion script changed: its fallback for a bash without bash-completion needs updating")
	}
	script = strings.Replace(script, wordsCall, fmt.Sprintf(`    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
    else
        __%s_comp_words
    fi
`, name), 1)
	script = strings.ReplaceAll(script, "_filedir", fmt.Sprintf("__%s_filedir", name))
	script = strings.Replace(script, initFunc, strings.ReplaceAll(bashFallback, "NAME", name)+initFunc, 1)
	_, err := io.WriteString(w, script)
	return err
}

// bashFallback stands in for the bash-completion package's functions
// when it is not loaded; NAME is the program's name.
const bashFallback = `# Without the bash-completion package: bash's own words (COMP_WORDS),
# with the words bash split at = and : joined back, as
# _get_comp_words_by_ref -n =: gives them.
__NAME_comp_words()
{
    local i w glue=0
    words=()
    cword=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if ((${#words[@]} > 0)) && { ((glue)) || [[ -n $w && -z ${w//[=:]/} ]]; }; then
            words[${#words[@]}-1]+=$w
        else
            words+=("$w")
        fi
        if [[ -n $w && -z ${w//[=:]/} ]]; then glue=1; else glue=0; fi
        ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
    done
    cur=${words[cword]}
    prev=
    ((cword > 0)) && prev=${words[cword-1]}
    return 0
}

# _filedir from the bash-completion package when it is loaded; otherwise
# folders (-d), or files with one of the extensions given ("yaml|yml|")
# and folders.
__NAME_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' f ext
    if [[ ${1-} == -d ]]; then
        COMPREPLY+=($(compgen -d -- "$cur"))
    else
        for f in $(compgen -f -- "$cur"); do
            if [[ -d $f || -z ${1-} ]]; then
                COMPREPLY+=("$f")
                continue
            fi
            for ext in ${1//|/$'\n'}; do
                if [[ $f == *."$ext" ]]; then
                    COMPREPLY+=("$f")
                    break
                fi
            done
        done
    fi
    compopt -o filenames 2>/dev/null
    return 0
}

`
