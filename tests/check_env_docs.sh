#!/bin/sh
# check_env_docs.sh - every ZIPFFT_ variable the code names has a row in README.md or
# docs/tuning.md, and every row there names a variable the code still reads.
# Usage: check_env_docs.sh SOURCE_ROOT. Prints each mismatch; exits 1 if there is one.
root=${1:?usage: check_env_docs.sh SOURCE_ROOT}
failed=0

# Quoted names in the C code, and names the scripts expand ($NAME, ${NAME...}); the
# status names (ZIPFFT_STATUS_LIST in the public header, and the name of an unknown one)
# are not variables.
statuses=$(grep -oE 'X\(ZIPFFT_[A-Z0-9_]+' "$root/include/zipfft.h" | cut -c3-)
named=$( (grep -rhoE '"ZIPFFT_[A-Z0-9_]+"' "$root/src" "$root/tools" "$root/tests" | tr -d '"'
  grep -rhoE '\$\{?ZIPFFT_[A-Z0-9_]+' "$root/scripts" | tr -d '${') |
  grep -vxF -e ZIPFFT_UNKNOWN_STATUS $(printf -- '-e %s ' $statuses) | sort -u)
# Names that begin a table row: | `ZIPFFT_NAME` | effect |
rows=$(cat "$root/README.md" "$root/docs/tuning.md" | grep -oE '^\| `ZIPFFT_[A-Z0-9_]+` \|' |
  grep -oE 'ZIPFFT_[A-Z0-9_]+' | sort)
if [ -z "$named" ] || [ -z "$rows" ] || [ -z "$statuses" ]; then
  echo "check_env_docs: found no variables, rows or status names under $root"
  exit 1
fi

for name in $named; do
  if ! printf '%s\n' "$rows" | grep -qx "$name"; then
    echo "$name is read by the code but has no row in README.md or docs/tuning.md"
    failed=1
  fi
done
for name in $rows; do
  if ! printf '%s\n' "$named" | grep -qx "$name"; then
    echo "$name has a row in README.md or docs/tuning.md but the code never names it"
    failed=1
  fi
done
duplicated=$(printf '%s\n' "$rows" | uniq -d)
if [ -n "$duplicated" ]; then
  echo "rows given twice: $duplicated"
  failed=1
fi
[ $failed -eq 0 ] && echo "$(printf '%s\n' "$rows" | wc -l) variables, each with one row"
exit $failed
