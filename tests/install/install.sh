#!/bin/sh
# `cmake --install` into a DESTDIR, then use what was installed the way
# another project would: build tests/install/embed.c against the installed
# header with nothing but `pkg-config --cflags --libs shard`, run it on the
# samples, and check the binary, man pages and completion landed.
#
#   install.sh BUILD_DIR SOURCE_DIR CC LIBDIR WORK_DIR
#
# $PKG_CONFIG names pkg-config; $SHARD_EMBED_CFLAGS are compiler flags the
# library was built with that a program linking it needs too (sanitizers).
set -u
build=$1 src=$2 cc=$3 libdir=$4 work=$5
# Not the configured prefix: `--prefix` at install time must reach shard.pc.
prefix=/opt/shard-test
root=$work/root
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

rm -rf "$work"
mkdir -p "$work"
if ! DESTDIR=$root cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi
p=$root$prefix

# Everything the packaging promises.
for f in bin/shard "$libdir/libshard.a" "$libdir/pkgconfig/shard.pc" include/shard/shard.h \
  share/bash-completion/completions/shard share/zsh/site-functions/_shard; do
  [ -f "$p/$f" ] || fail "$prefix/$f was not installed"
done
for page in "$src"/man/*.1; do
  [ -f "$p/share/man/man1/$(basename "$page")" ] || fail "man page $(basename "$page") was not installed"
done
# Private headers stay private.
[ -z "$(find "$p/include" -name 'parse.h' -o -name 'ir.h')" ] || fail "private headers were installed"

# libshard needs libc and libm only.
if nm -u "$p/$libdir/libshard.a" 2>/dev/null | grep -E '\b(cJSON_|gv[A-Z]|ag(open|node)|el_init|history)' >"$work/deps"; then
  fail "libshard.a refers to cJSON, Graphviz or libedit:"
  head -5 "$work/deps"
fi

# Every symbol libshard defines for the linker starts with shard_ (the
# library's namespace), so an embedding program's names cannot collide.
nm -g --defined-only "$p/$libdir/libshard.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
  grep -v -E '^(shard_|__)' | sort -u >"$work/unprefixed"
if [ -s "$work/unprefixed" ]; then
  fail "libshard.a defines symbols outside the shard_ namespace:"
  head -10 "$work/unprefixed"
fi

# pkg-config, relocated into the DESTDIR the usual way (sysroot).
PKG_CONFIG_PATH=$p/$libdir/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$root
PKG_CONFIG_LIBDIR=$p/$libdir/pkgconfig
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
pkgconfig=${PKG_CONFIG:-pkg-config}
flags=$($pkgconfig --cflags --libs shard) || fail "pkg-config --cflags --libs shard"
echo "pkg-config --cflags --libs shard: $flags"
# shard.pc describes this project: no other project's URL (the URL line is
# there only when the build was given SHARD_HOMEPAGE_URL).
grep -q openxla "$p/$libdir/pkgconfig/shard.pc" && fail "shard.pc names another project's URL"
version=$($pkgconfig --modversion shard)
installed_version=$("$p/bin/shard" --version 2>&1)
case $installed_version in
*"$version"*) ;;
*) fail "shard --version says '$installed_version', shard.pc says '$version'" ;;
esac

# The header must be clean C99 and C11 on its own, with -pedantic.
# shellcheck disable=SC2086
if ! "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -Wstrict-prototypes -o "$work/embed" \
  ${SHARD_EMBED_CFLAGS:-} "$src/tests/install/embed.c" $flags >"$work/cc.log" 2>&1; then
  cat "$work/cc.log"
  fail "embed.c does not build against the installed libshard"
  echo "$failures failure(s)"
  exit 1
fi

# Expect: exit status STATUS, and every PATTERN (fixed string) in the output.
expect() {
  status=$1 name=$2
  shift 2
  actual=0
  "$@" >"$work/$name.out" 2>&1 || actual=$?
  [ "$actual" = "$status" ] || fail "$name: exit $actual, expected $status"
}
has() {
  grep -qF -- "$2" "$work/$1.out" || fail "$1: no line with '$2'"
}

expect 0 valid "$work/embed" "$src/samples/mlp_dp_mp.mlir" \
  '@mesh = <["x"=2, "y"=4]>; sharding<@mesh, [{"x"}, {"y"}]> : tensor<8x?xf32>' \
  'sdy.mesh @m = <["a"=4]>
#sdy.sharding<@m, [{}, {"a"}, {}]> : tensor<2x10x3xbf16>'
has valid "libshard $version"
has valid "mlp_dp_mp.mlir: 0 errors"
has valid "pretty: "
has valid "generic: "
has valid "snippet 1: 8 devices, global 8x?, local 4x?"
# 10 over 4 devices pads to 3 (and the verifier's extra warning says so).
has valid "snippet 2: 4 devices, global 2x10x3, local 2x3x3"
has valid "<snippet>:2:1: warning: "
grep -q INVALID "$work/valid.out" && fail "valid: a printed module did not parse or verify again"
grep -q "bad source line" "$work/valid.out" && fail "valid: a diagnostic's source line is wrong"

# One error per `// mistake:` comment, on the line below it.
expect 1 mistakes "$work/embed" "$src/samples/mistakes.mlir"
want=$(grep -c '^ *// mistake:' "$src/samples/mistakes.mlir")
has mistakes "mistakes.mlir: $want errors"
for line in $(grep -n '^ *// mistake:' "$src/samples/mistakes.mlir" | cut -d: -f1); do
  has mistakes "mistakes.mlir:$((line + 1)):"
done

# Errors in a snippet point into the snippet; parse errors fail the parse.
expect 1 snippet "$work/embed" "$src/samples/mlp_dp_mp.mlir" \
  '@mesh = <["x"=2]>; sharding<@mesh, [{"z"}]> : tensor<8xf32>'
has snippet "<snippet>:1:20: error: 'func.func' op arg 0 - unknown axis name: \"z\""
has snippet "snippet 1: invalid"
printf 'func.func @f(%%a: tensor<4xf32>) {\n  %%0 = stablehlo.add %%a, %%b : tensor<4xf32>\n}\n' >"$work/bad.mlir"
expect 1 parse "$work/embed" "$work/bad.mlir"
has parse "bad.mlir:2:"
has parse "bad.mlir: parse failed"
expect 1 missing "$work/embed" "$work/no-such-file.mlir"
has missing "no-such-file.mlir:0:0: error: cannot read: No such file"

# The installed zsh completion finds the installed bash one (skipped
# without zsh).
PATH=$p/bin:$PATH bash "$src/tests/install/completion_zsh.sh" "$p/share/zsh/site-functions" \
  "$p/bin/shard" "$p/share/bash-completion/completions/shard" >"$work/completion_zsh.out" 2>&1
case $? in
0) ;;
77) cat "$work/completion_zsh.out" ;;
*) cat "$work/completion_zsh.out"; fail "completion_zsh.sh on the installed files" ;;
esac
# The installed completion knows the installed binary.
PATH=$p/bin:$PATH bash "$src/tests/install/completion.sh" "$p/share/bash-completion/completions/shard" \
  "$p/bin/shard" >"$work/completion.out" 2>&1 || {
  cat "$work/completion.out"
  fail "completion.sh on the installed files"
}

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s); outputs in $work"
  exit 1
fi
echo "install: ok ($p)"
