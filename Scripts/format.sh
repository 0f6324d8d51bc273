#!/usr/bin/env bash
# Formats the package's Swift code with the toolchain's swift-format and the configuration in
# .swift-format; with --lint, checks it instead (strict: any finding fails, as in .ci/run).
#   Scripts/format.sh          # rewrite files in place
#   Scripts/format.sh --lint   # report, change nothing
# Generated code (Tests/GeneratedModels) carries `// swift-format-ignore-file` in its header, so it
# stays exactly as the generator writes it.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Examples Plugins)
case "${1:-}" in
    --lint) swift format lint --strict --recursive --parallel "${paths[@]}" ;;
    "") swift format format --in-place --recursive --parallel "${paths[@]}" ;;
    *) echo "usage: Scripts/format.sh [--lint]" >&2; exit 64 ;;
esac
