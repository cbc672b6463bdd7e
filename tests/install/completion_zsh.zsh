# Runs zsh's completion of one command line through completions/_shard with
# compsys' compadd/compset replaced by recorders (they only work inside a
# completion widget), and prints the offered words sorted on one line.
#
#   zsh -f completion_zsh.zsh COMPLETIONS_DIR SHARD_BINARY LINE
fpath=($1 $fpath)
autoload -Uz compinit && compinit -u -D
typeset -ga _got
compadd() {
  while (( $# )); do
    case $1 in
      -a) shift; _got+=( ${(P)1} ) ;;
      -) shift; _got+=( "$@" ); break ;;
      -[SPJVXx]) shift ;;
    esac
    shift
  done
}
compset() { return 1 }
_message() { print -u2 "message: $*" }
words=( ${=3} )
[[ $3 == *" " ]] && words+=( "" )
words[1]=$2
CURRENT=$#words
PREFIX=${words[CURRENT]} SUFFIX= IPREFIX= QIPREFIX=
autoload -Uz _shard
_shard
print -r -- ${(o)_got}
