#!/usr/bin/env bash
# Builds ModelGenRuntime's documentation (the DocC catalog Sources/ModelGenRuntime/ModelGenRuntime.docc
# and the doc comments of its public API) with the toolchain's docc, treating every warning as an
# error. Writes OUTPUT (default .build/docs/ModelGenRuntime.doccarchive).
#   Scripts/docs.sh
#   Scripts/docs.sh /tmp/ModelGenRuntime.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build/docs/ModelGenRuntime.doccarchive}"
scratch=.build/docs-build
emitted="$PWD/$scratch/symbol-graphs"
graphs=.build/docs/symbol-graphs
mkdir -p "$emitted"

# The symbol graph of the module's public API, from a build of its own (so the usual build's cache
# is not invalidated by the extra compiler flags). An up-to-date build emits nothing, and the
# graphs of the last build that did stay where they were written.
swift build --scratch-path "$scratch" --target ModelGenRuntime \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$emitted" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >&2
# Only ModelGenRuntime's own graphs (the build also writes those of the modules it imports).
rm -rf "$graphs" && mkdir -p "$graphs"
cp "$emitted"/ModelGenRuntime.symbols.json "$graphs"/
cp "$emitted"/ModelGenRuntime@*.symbols.json "$graphs"/ 2>/dev/null || true

docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$docc" ] || docc=docc
rm -rf "$output"
"$docc" convert Sources/ModelGenRuntime/ModelGenRuntime.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name ModelGenRuntime \
    --fallback-bundle-identifier org.modelgen.ModelGenRuntime \
    --output-path "$output" \
    --warnings-as-errors
echo "wrote $output" >&2
