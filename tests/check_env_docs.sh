#!/bin/sh
# check_env_docs.sh - every ZIPFFT_ variable the code names has a row in README.md or
# docs/tuning.md, and every row there names a variable the code still reads.
# Usage: check_env_docs.sh SOURCE_ROOT. Prints each mismatch; exits 1 if there is one.
root=${1:?usage: check_env_docs.sh SOURCE_ROOT}
docs="$root/README.md $root/docs/tuning.md"
failed=0

# Quoted names in the code; those the public header names (status names) are not variables.
named=$(grep -rhoE '"ZIPFFT_[A-Z0-9_]+"' "$root/src" "$root/tools" "$root/tests" | tr -d '"' |
  sort -u)
# Names that begin a table row: | `ZIPFFT_NAME` | effect |
rows=$(cat $docs | grep -oE '^\| `ZIPFFT_[A-Z0-9_]+` \|' | grep -oE 'ZIPFFT_[A-Z0-9_]+' | sort)

for name in $named; do
  grep -q "$name" "$root/include/zipfft.h" && continue
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
