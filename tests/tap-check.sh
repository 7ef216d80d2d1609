# tap-check — sourced by the shell tests that state each check as a shell
# expression: `check DESCRIPTION EXPRESSION` prints one TAP line, and T is
# a scratch directory removed on exit.  The test ends with `exit $fail`.
T=$(mktemp -d "${TMPDIR:-/tmp}/pl-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else no "$1"; fi; }
