# bash completion for shard(1).                                -*- shell-script -*-
#
# Completes the subcommands of `shard help`, each command's options (as its
# `shard help COMMAND` lists them), the values of options that take one of a
# few words, file names where a file is expected, and `shard opt`'s passes,
# which are read from `shard help opt` once per binary because they change
# with every release. tests/install/completion.sh checks these lists against
# the binary's help.
#
# Installed as share/bash-completion/completions/shard; to try it from a
# checkout: `source completions/shard.bash`.

_shard_commands="check opt viz repl propagate convert interpret plan lower help version"

# Options per command. A trailing '=' marks an option written --opt=VALUE.
_shard_options_check="-e --split-input-file --format --format= --Werror --color= -h --help"
_shard_options_opt="-o -split-input-file -verify-diagnostics -allow-unregistered-dialect
  -mlir-print-op-generic -mlir-print-debuginfo -- -h --help"
_shard_options_viz="-e --value --arg --result --func --format --format= -o --layout --layout=
  --color= --stage --stage= --no-propagate --topology --topology= --focus --depth --from --from= --mesh
  --shape -h --help"
_shard_viz_subcommands="placement mesh graph plan memory"
_shard_options_repl="--history --no-history --color= -h --help"
_shard_options_propagate="-o --strategy --strategy= --emit --emit= --mode --mode= --no-progress --explain
  --explain= --rules --op-priority --verify-each --color= -h --help"
_shard_options_convert="--from --from= --to --to= --mesh --shape --format --format= --Werror
  --placement --allow-lossy
  --color= -h --help"
_shard_options_interpret="--interpret --args= -split-input-file --split-input-file --interpreter-print-dense --probe-output-dir= -q --quiet --max-steps --max-steps= --color= -h --help"
_shard_options_plan="--shape --mesh --notation --notation= --topology --topology= --allow-lossy --format
  --format= -h --help"
_shard_options_lower="-o --no-progress --plan --plan= --memory --memory= --memory-limit --memory-limit= --top
  --topology --topology= --no-propagate --verify-each --local --verify --verify-local --max-steps --max-steps= -h
  --help"
_shard_options_help=""
_shard_options_version=""
_shard_options_global="--version --help"

_shard_notations="hlo hlo-v3 shardy pspec dtensor tf paddle paddle-placements oneflow oneflow-python"
_shard_topologies="tpu-v4p tpu-v5p tpu-v5e tpu-v6e h100 h200 b200"

# The words an option's value may be, "@file" for a file name, "@mlir" for an
# MLIR file, or nothing when the value is free text. $1 command, $2 option.
_shard_values() {
  case "$1:$2" in
  *:--color) echo "auto always never" ;;
  check:--format) echo "text json sarif" ;;
  viz:--format) echo "txt dot svg png pdf json" ;;
  convert:--format | plan:--format) echo "text json" ;;
  viz:--layout) echo "slices fold" ;;
  viz:--stage) echo "propagated reshards lowered" ;;
  propagate:--strategy) echo "pipeline basic aggressive op-priority user-priority" ;;
  propagate:--emit) echo "mlir generic json" ;;
  propagate:--mode) echo "auto explicit" ;;
  propagate:--explain | lower:--plan | lower:--memory) echo "text json" ;;
  convert:--from | convert:--to | plan:--notation | viz:--from) echo "$_shard_notations" ;;
  plan:--topology | lower:--topology | viz:--topology) echo "$_shard_topologies @file" ;;
  *:-o | repl:--history | propagate:--rules) echo "@file" ;;
  lower:--verify-local) echo "@mlir" ;;
  esac
}

# Options that consume the next word (so that word is not a file argument).
_shard_takes_value() {
  case "$1:$2" in
  *:-o | *:-e | *:--format | *:--history | viz:--value | viz:--arg | viz:--result | viz:--func | \
    viz:--layout | viz:--stage | viz:--focus | viz:--depth | viz:--from | viz:--mesh | viz:--shape | propagate:--strategy | propagate:--emit | propagate:--mode | \
    propagate:--rules | propagate:--op-priority | convert:--from | convert:--to | \
    convert:--mesh | convert:--shape | plan:--shape | plan:--mesh | plan:--notation | \
    *:--topology | lower:--top | lower:--verify-local | lower:--memory-limit | *:--max-steps)
    return 0 ;;
  esac
  return 1
}

# `shard opt` passes, from the help of the binary being completed.
_shard_passes() {
  local bin=$1
  if [[ ${_shard_passes_bin-} != "$bin" ]]; then
    _shard_passes_list=$("$bin" help opt 2>/dev/null |
      sed -n '/^Passes/,/^[^ ]/{s/^  \(-[a-z][-a-z0-9]*\).*/\1/p}')
    _shard_passes_bin=$bin
  fi
  echo "$_shard_passes_list"
}

# Sets COMPREPLY to the words of $1 that start with $2 ("@file" and "@mlir"
# stand for file names).
_shard_reply() {
  local words=$1 cur=$2 w
  COMPREPLY=()
  for w in $words; do
    case $w in
    @file)
      COMPREPLY+=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null ;;
    @mlir)
      COMPREPLY+=($(compgen -d -- "$cur") $(compgen -f -X '!*.mlir' -- "$cur"))
      compopt -o filenames 2>/dev/null ;;
    "$cur"*)
      COMPREPLY+=("$w") ;;
    esac
  done
  # Options written --opt=VALUE: no space after the '='.
  if [[ ${#COMPREPLY[@]} -gt 0 && ${COMPREPLY[*]} == *= ]]; then
    compopt -o nospace 2>/dev/null
  fi
}

_shard() {
  local IFS=$' \t\n' # the lists below are split on blanks, whatever the user's IFS
  # bash splits "--format=sarif" into "--format" "=" "sarif" (':' too, in
  # some set-ups); glue those pieces back so each option is one word.
  local words=() i w
  local cword=-1
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    if ((i > 0)) && [[ $w == "=" || ${COMP_WORDS[i - 1]} == "=" ]] &&
      [[ ${#words[@]} -gt 1 && ${words[${#words[@]} - 1]} == -* ]]; then
      words[${#words[@]} - 1]+=$w
    else
      words+=("$w")
    fi
    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
  done
  ((cword < 0)) && cword=${#words[@]} && words+=("")
  local cur=${words[cword]}
  local bin=${words[0]}

  # The command: the first word that is not a global option.
  local cmd="" cmd_at=0
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
    -*) ;;
    *) cmd=${words[i]}; cmd_at=$i; break ;;
    esac
  done

  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      _shard_reply "$_shard_options_global" "$cur"
    else
      _shard_reply "$_shard_commands" "$cur"
    fi
    return 0
  fi

  # (eval, not ${!var}: zsh runs this script too, see _shard; $cmd is
  # letters only when the eval runs)
  local opts_var="_shard_options_${cmd}" opts
  if [[ $cmd == *[!a-z]* ]] || ! eval "[[ -n \${$opts_var+set} ]]"; then
    COMPREPLY=() # unknown command
    return 0
  fi
  eval "opts=\$$opts_var"

  # --opt=VALUE: complete the value; bash replaces only the text after '='
  # when '=' breaks words, the whole word otherwise.
  if [[ $cur == -*=* ]]; then
    local opt=${cur%%=*} val=${cur#*=}
    _shard_reply "$(_shard_values "$cmd" "$opt")" "$val"
    if [[ $COMP_WORDBREAKS != *=* ]]; then
      for ((i = 0; i < ${#COMPREPLY[@]}; i++)); do COMPREPLY[i]="$opt=${COMPREPLY[i]}"; done
    fi
    return 0
  fi

  # The value of an option given as a separate word.
  local prev=""
  ((cword > cmd_at + 1)) && prev=${words[cword - 1]}
  if [[ -n $prev ]] && _shard_takes_value "$cmd" "$prev"; then
    _shard_reply "$(_shard_values "$cmd" "$prev")" "$cur"
    return 0
  fi

  case $cmd in
  help)
    ((cword == cmd_at + 1)) && _shard_reply "$_shard_commands" "$cur"
    return 0 ;;
  version)
    COMPREPLY=()
    return 0 ;;
  viz)
    if ((cword == cmd_at + 1)); then
      _shard_reply "$_shard_viz_subcommands" "$cur"
      return 0
    fi ;;
  esac

  if [[ $cur == -* ]]; then
    local extra=""
    [[ $cmd == opt ]] && extra=$(_shard_passes "$bin")
    _shard_reply "$opts $extra" "$cur"
    return 0
  fi

  case $cmd in
  convert | plan) COMPREPLY=() ;; # shardings, not files
  *) _shard_reply "@mlir" "$cur" ;;
  esac
  return 0
}

complete -F _shard shard
