#!/bin/sh
# Checks (or with --fix, rewrites) the layout of the C sources against
# .clang-format: src/ and tests/ *.c and *.h, except the fuzz seeds and
# the test inputs. The layout was made with clang-format 14 (Debian 12);
# another major version lays some lines out differently, so the check
# skips (exit 77, one visible line) when clang-format 14 is not installed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
fmt=
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null 2>&1; then fmt=$c; break; fi
done
if [ -z "$fmt" ]; then
  echo "format: SKIPPED: clang-format is not installed (scripts/deps.sh --test installs it)"
  exit 77
fi
major=$("$fmt" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "format: SKIPPED: $fmt is version $major; the layout is clang-format 14's"
  exit 77
fi
files=$(git ls-files 'src/*.c' 'src/*.h' 'tests/*.c' 'tests/*.h' 2>/dev/null | grep -v '^tests/fuzz/seeds/')
if [ -z "$files" ]; then
  files=$(find src tests -name '*.[ch]' -not -path 'tests/fuzz/seeds/*' | sort)
fi
if [ "${1:-}" = --fix ]; then
  # shellcheck disable=SC2086
  "$fmt" -i --style=file $files
  exit $?
fi
# shellcheck disable=SC2086
"$fmt" --dry-run -Werror --style=file $files 2>&1 | head -40
# shellcheck disable=SC2086
if "$fmt" --dry-run -Werror --style=file $files >/dev/null 2>&1; then
  echo "format: $(echo "$files" | wc -l) files laid out as .clang-format says"
  exit 0
fi
echo "format: FAILED: run scripts/format_check.sh --fix (or make format) and commit"
exit 1
