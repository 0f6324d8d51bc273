#!/usr/bin/env bash
# Rewrites the generated-Swift references in Tests/GeneratedModels/ with the
# current generator (use when a generator change makes the old references fail to compile, so
# `MODELGEN_RECORD=1 swift test` cannot build). Review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product modelgen
for model in Models/*.xcdatamodeld; do
    name=$(basename "$model" .xcdatamodeld)
    rm -f "Tests/GeneratedModels/$name/"*.swift
    # Tasks is generated observable (ReferenceTests.observableModels), for the Observation tests.
    extra=()
    if [ "$name" = "Tasks" ]; then extra=(--observable); fi
    .build/debug/modelgen generate "$model" --output "Tests/GeneratedModels/$name" "${extra[@]}"
done
# The code Tests/PluginConsumer commits for its Inventory target (CommandPluginTests checks it).
inventory=Tests/PluginConsumer/Sources/Inventory
.build/debug/modelgen generate "$inventory/Inventory.xcdatamodeld" --config "$inventory/modelgen.json" --output "$inventory/Generated"
