#!/usr/bin/env bash
# npm test: the whole suite on a fresh Debian machine.
#  1. Debian packages (installed when run as root, else named)   2. build everything   3. lint
#  4. API suite on SQLite   5. its tests against the database again on a real MariaDB
#  6. the security suite (npm run test:security)
#  7. scale-out: MariaDB, Redis, an S3 server, two API nodes, a worker and nginx on loopback   8. reliability: the
#  built server SIGKILLed 50 times while signing, and 200 signers at once on SQLite   9. the PDF syntax reader's suite,
#  then the verifier's (OpenSSL's TSA and OCSP responder)   10. the CLI's suite (a SoftHSMv2 token for the DSC signer)
#  11. Playwright journeys in Chromium
# Ends with one line "tests: N passed, N failed" over every runner.
set -uo pipefail
cd "$(dirname "$0")/.."
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0

# Each step's line says when it starts, and how long the one before it took, so a slow CI run shows where it went.
started=$SECONDS
last=$SECONDS
step() {
  printf '\n==> [%dm%02ds, the step before took %ds] %s\n' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)) \
    $((SECONDS - last)) "$*"
  last=$SECONDS
}

step "Debian packages"
bash scripts/ensure-system-deps.sh || exit 1

step "Build"
npm run build --silent || exit 1

step "Lint"
npm run lint --silent || status=1

step "API suite on SQLite"
(cd api && DB_ENGINE=sqlite npx jest --json --outputFile="$results/api-sqlite.json") || status=1

step "API suite on MariaDB (the tests against the database; the unit tests ran above)"
(cd api && DB_ENGINE=mariadb npx jest --json --outputFile="$results/api-mariadb.json") || status=1

step "Security suite (every route with foreign, missing, expired and revoked keys and tokens; brute force; secrets in logs; 265 mutated PDFs; headers; ESP XML attacks)"
(cd api && DB_ENGINE=sqlite npx jest -c jest.security.config.js --json --outputFile="$results/api-security.json") || status=1

step "Scale-out (MariaDB, Redis, s3rver, two API nodes and the BullMQ worker behind nginx, all on loopback)"
(cd api && npx jest -c jest.scale-out.config.js --json --outputFile="$results/api-scale-out.json") || status=1

step "Reliability (the built server on SQLite SIGKILLed at 50 random points of signing and restarted; 200 signers at once)"
(cd api && npx jest -c jest.reliability.config.js --json --outputFile="$results/api-reliability.json") || status=1

step "PDF syntax reader (cross-reference data, object streams, the rebuild of a damaged file; no pdf-lib in the lockfile)"
(cd api/pdf-syntax && npx jest --json --outputFile="$results/pdf-syntax.json") || status=1

step "Verifier suite (PAdES levels, timestamps, revocation data and --at against OpenSSL's TSA and OCSP responder)"
(cd api/verifier && npx jest --json --outputFile="$results/verifier.json") || status=1

step "CLI suite (the built CLI against the built API: commands, bulk, verify; the DSC agent on SoftHSMv2 tokens)"
(cd cli && npx jest --json --outputFile="$results/cli.json") || status=1

step "Browser journeys (Playwright, Debian Chromium)"
(cd tests && PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test -c playwright.config.ts --reporter=list,json) || status=1

step "Summary"
node scripts/summarise-tests.mjs "$results" || status=1
exit $status
