#!/bin/bash
# The zsh completion (completions/_shard runs completions/shard.bash through
# bashcompinit): completes lines under zsh and compares the words offered
# with what the bash completion replies for the same line, and with the
# expected words. Exits 77 (skipped, with a line saying so) without zsh.
#
#   completion_zsh.sh ZSH_DIR SHARD_BINARY [BASH_SCRIPT]
#
# ZSH_DIR holds _shard (completions/ in a checkout, where the bash script is
# shard.bash beside it; share/zsh/site-functions when installed, with
# BASH_SCRIPT the installed bash completion that _shard must find itself).
set -u
dir=$1 shard=$2 bash_script=${3:-$1/shard.bash}
here=$(cd "$(dirname "$0")" && pwd)
zsh=$(command -v zsh) || {
  echo "SKIP: zsh is not installed (apt-get install zsh, or scripts/deps.sh --test)"
  exit 77
}
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# bash's replies: the line split at blanks (no '=' in these lines, so bash
# would split them the same way), then _shard as bash calls it.
bash_line() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _shard; printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " " | sed "s/ $//"' \
    sh "$bash_script" "$@"
}

check() {
  local line=$1 want=$2 got words
  got=$("$zsh" -f "$here/completion_zsh.zsh" "$dir" "$shard" "$line" 2>&1 | LC_ALL=C tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ *$//;s/^ *//')
  [[ $got == "$want" ]] || fail "zsh: '$line<TAB>': got '$got', want '$want'"
  if [[ $line != *=* ]]; then
    read -r -a words <<<"$line"
    words[0]=$shard
    [[ $line == *" " ]] && words+=("")
    local b
    b=$(bash_line "${words[@]}")
    [[ $got == "$b" ]] || fail "'$line<TAB>': zsh offers '$got', bash '$b'"
  fi
}

check "shard " "check convert help interpret lower opt plan propagate repl version viz"
check "shard p" "plan propagate"
check "shard viz " "graph memory mesh placement plan"
check "shard check --f" "--format --format="
check "shard check --format " "json sarif text"
check "shard check --format=sa" "--format=sarif"
check "shard viz graph --stage " "lowered propagated reshards"
check "shard propagate --strategy " "aggressive basic op-priority pipeline user-priority"
check "shard plan --al" "--allow-lossy"
check "shard lower --no-pro" "--no-progress --no-propagate"
check "shard help pro" "propagate"
check "shard opt -sdy-insert" "-sdy-insert-explicit-reshards -sdy-insert-func-call-reshards"
check "shard nosuchcommand --" ""

[[ $failures -eq 0 ]] && echo "zsh completion: ok"
exit $((failures > 0))
