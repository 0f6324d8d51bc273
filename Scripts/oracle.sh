#!/usr/bin/env bash
# Runs the runtime's differential test (Tests/ModelGenCoreTests/ModelGenRuntime/Oracle) for SECONDS seconds
# (default 600), from seed FIRST (default 1): random models, operations and queries, each answer
# compared with brute force. Findings are printed shrunk, with their seed and model.
#   Scripts/oracle.sh 3600        # an hour
#   Scripts/oracle.sh 60 5000     # a minute from seed 5000
# Each case runs on SQLite and on PostgreSQL (a throwaway cluster); MODELGEN_ORACLE_BACKENDS=postgres
# (or sqlite) runs one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
first="${2:-1}"
swift build --build-tests
MODELGEN_ORACLE_SECONDS="$seconds" MODELGEN_ORACLE_SEED="$first" MODELGEN_ORACLE_FINDINGS="${MODELGEN_ORACLE_FINDINGS:-20}" \
    MODELGEN_REQUIRE_POSTGRES="${MODELGEN_REQUIRE_POSTGRES:-1}" swift test --skip-build --filter OracleTests/random
