#!/usr/bin/env bash
# The duplicate-code report of issue 20: pairs of places sharing six or more lines in the product's source code (the
# API, the contract, the PDF-syntax reader, the verifier, the CLI and the two web apps), leaving out tests, specs,
# migrations and entity files (their column decorators). Uses the `duplicates` tool of this workplace.
#   [MOST=N] scripts/duplicate-report.sh [REV]     REV: a commit (default: the working tree); MOST: rows shown
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:-}"
most="${MOST:-40}"
command -v duplicates >/dev/null || { echo "duplicates (the workplace's tool) is not on PATH" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
dirs=(api/src api/contract/src api/pdf-syntax/src api/verifier/src cli/src admin/src signer-web/src)
if [ -n "$rev" ] && [ "$rev" != "--" ]; then
  present=()
  for d in "${dirs[@]}"; do git cat-file -e "$rev:$d" 2>/dev/null && present+=("$d"); done
  git archive "$rev" "${present[@]}" | tar -x -C "$tmp"
else
  for d in "${dirs[@]}"; do [ -d "$d" ] && { mkdir -p "$tmp/$(dirname "$d")"; cp -r "$d" "$tmp/$d"; }; done
fi
find "$tmp" \( -name '*.spec.ts' -o -name '*.spec.tsx' -o -name '*.test.ts' -o -name '*.test.tsx' -o -name '*.entity.ts' \
  -o -name '*.d.ts' \) -delete
rm -rf "$tmp/api/src/database/migrations"
find "$tmp" -type f ! \( -name '*.ts' -o -name '*.tsx' -o -name '*.js' -o -name '*.mjs' -o -name '*.cjs' \) -delete
duplicates --repo "$tmp" --most "$most" --seconds 300
