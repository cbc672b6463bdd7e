#!/bin/bash
# The bash completion: sources the script, calls _shard with COMP_WORDS as
# bash would build them (words also split at '='), and compares COMPREPLY.
# Then checks the script against the binary's own help, so a new command or
# option that is not completed fails here.
#
#   completion.sh COMPLETION_SCRIPT SHARD_BINARY [SOURCE_DIR]
set -u
script=$1 shard=$2 src=${3:-}
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# shellcheck source=/dev/null
source "$script" || {
  echo "FAIL: cannot source $script"
  exit 1
}
[[ $(complete -p shard 2>/dev/null) == *"-F _shard"* ]] || fail "'complete -F _shard shard' not registered"

COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'

# complete LINE: splits LINE the way bash does for completion (blanks, and
# '=' as a word of its own), completes the last word, prints the sorted
# replies on one line.
complete_line() {
  local line=$1 w
  COMP_WORDS=()
  local IFS=' '
  for w in $line; do
    while [[ $w == *=* ]]; do
      [[ -n ${w%%=*} ]] && COMP_WORDS+=("${w%%=*}")
      COMP_WORDS+=("=")
      w=${w#*=}
    done
    [[ -n $w ]] && COMP_WORDS+=("$w")
  done
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_WORDS[0]=$shard
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMPREPLY=()
  _shard shard "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}"
  printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

check() {
  local line=$1 want=$2 got
  got=$(complete_line "$line")
  [[ $got == "$want" ]] || fail "'$line<TAB>': got '$got', want '$want'"
}

check "shard " "check convert help interpret lower opt plan propagate repl version viz"
check "shard ch" "check"
check "shard p" "plan propagate"
check "shard --v" "--version"
check "shard check --f" "--format --format="
check "shard check --format=" "json sarif text"
check "shard check --format=sa" "sarif"
check "shard check --format " "json sarif text"
check "shard check --color=n" "never"
check "shard check --W" "--Werror"
check "shard help pro" "propagate"
check "shard help check " ""
check "shard viz " "graph memory mesh placement plan"
check "shard viz graph --st" "--stage --stage="
check "shard viz graph --stage " "lowered propagated reshards"
check "shard viz graph --foc" "--focus"
check "shard viz plan --topology=tpu-v6" "tpu-v6e"
check "shard viz placement --lay" "--layout --layout="
check "shard viz placement --format " "dot json pdf png svg txt"
check "shard propagate --strategy " "aggressive basic op-priority pipeline user-priority"
check "shard propagate --explain=j" "json"
check "shard convert --to h" "hlo hlo-v3"
check "shard plan --topology=tpu-v5" "tpu-v5e tpu-v5p"
check "shard lower --plan=" "json text"
check "shard version " ""
check "shard nosuchcommand --" ""
# Passes come from `shard help opt`.
check "shard opt -sdy-insert" "-sdy-insert-explicit-reshards -sdy-insert-func-call-reshards"
check "shard opt -split" "-split-input-file"
check "shard opt -canon" "-canonicalize"
# File arguments: directories and .mlir files.
if [[ -n $src ]]; then
  (cd "$src" && [[ $(complete_line "shard check samples/mist") == "samples/mistakes.mlir" ]]) ||
    fail "'shard check samples/mist<TAB>' does not give samples/mistakes.mlir"
  (cd "$src" && [[ $(complete_line "shard check samples/nota") == "" ]]) ||
    fail "'shard check samples/nota<TAB>' offers a file that is not .mlir"
fi

# Against the binary's help: every command, and every option of every command.
commands=$("$shard" help | sed -n '/^Commands:/,/^$/{s/^ \{2,\}\([a-z][a-z-]*\) .*/\1/p}')
[[ -n $commands ]] || fail "no commands in 'shard help'"
for c in $commands; do
  [[ " $_shard_commands " == *" $c "* ]] || fail "command '$c' is not completed"
done
for c in $_shard_commands; do
  [[ $'\n'$commands$'\n' == *$'\n'$c$'\n'* ]] || fail "completed command '$c' is not in 'shard help'"
done
# Subcommands: the usage lines of a command ("shard viz graph FILE ...").
for c in $commands; do
  subs=$("$shard" help "$c" 2>&1 | sed -n "s/^\(usage:\)\{0,1\} *shard $c \([a-z][a-z-]*\) .*/\2/p" | sort -u)
  for sub in $subs; do
    var=_shard_${c}_subcommands
    [[ " ${!var-} " == *" $sub "* ]] || fail "subcommand '$c $sub' is not completed"
  done
done
for c in $commands; do
  var=_shard_options_$c
  [[ -n ${!var+set} ]] || continue
  # Option lines: two blanks then '-', in every section of the help (the
  # options of subcommands have sections of their own); the option column
  # ends at two blanks. opt's passes (their options indented below them)
  # come from the binary, so only its Options: section is compared.
  range='/^[A-Za-z].*:$/,/^$/'
  [[ $c == opt ]] && range='/^Options:/,/^$/'
  opts=$("$shard" help "$c" 2>&1 | sed -n "$range{/^  -/{s/^  //;s/  .*//;p}}" |
    grep -oE -- '--?[A-Za-z][-A-Za-z0-9]*(\[?=)?' | sed 's/\[=$/=/')
  for o in $opts; do
    [[ " ${!var} " == *[[:space:]]"$o"[[:space:]]* ]] || fail "option '$o' of '$c' is not completed"
  done
done

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "completion: ok"
