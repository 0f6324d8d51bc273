#!/usr/bin/env bash
# Builds and runs one libFuzzer target outside the normal test build.
#
#   Scripts/fuzz.sh model|predicate|template [SECONDS] [extra libFuzzer options…]
#
# The target is compiled with `swiftc -sanitize=fuzzer,address` together with the modules it
# needs (into .build/fuzz). Its corpus lives in .build/fuzz/corpus-TARGET, seeded from the shared
# model corpus, the Mustache spec and sample predicates; crashes and hangs are written as
# .build/fuzz/crash-* / timeout-* files. Copy each one into
# Tests/ModelGenCoreTests/Fixtures/FuzzRegressions/TARGET/, where FuzzRegressionTests replays it.
set -euo pipefail
target=${1:?usage: Scripts/fuzz.sh model|predicate|template [SECONDS]}
seconds=${2:-60}
shift $(( $# > 1 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${MODELGEN_SHARED:-$root/../shared}
build="$root/.build/fuzz"
mkdir -p "$build"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -enable-upcoming-feature ExistentialAny)
xml=(-I "$root/Sources/CLibXML2" -Xcc -I/usr/include/libxml2)

module() {
    local name=$1
    shift
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$build/$name.swiftmodule" \
        -emit-library -static -I "$build" "$@" -o "$build/lib$name.a"
}

case "$target" in
model | predicate | template) ;;
*) echo "unknown fuzz target '$target' (model, predicate, template)" >&2; exit 64 ;;
esac

module PredicateSyntax "$root"/Sources/PredicateSyntax/*.swift
module Mustache "$root"/Sources/Mustache/*.swift
if [ "$target" = model ]; then
    # ModelGenCore's C targets: each one's object and a module map for its header.
    c_target() {
        local name=$1 source=$2 header=$3
        clang -O2 -g -fsanitize=address -c "$root/Sources/$name/$source" -I "$root/Sources/$name/include" -o "$build/$name.o"
        ar rcs "$build/lib$name.a" "$build/$name.o"
        mkdir -p "$build/$name"
        printf 'module %s {\n    header "%s"\n    export *\n}\n' "$name" "$root/Sources/$name/include/$header" > "$build/$name/module.modulemap"
    }
    c_target CSHA256 sha256.c csha256.h
    c_target CAllocator allocator.c callocator.h
    # The Swift generator needs SwiftPM's embedded resources and is not what this target fuzzes.
    mapfile -t core < <(find "$root/Sources/ModelGenCore" -name '*.swift' -not -path '*/GenerateSwift/*' | sort)
    # Testable: the target also checks the partitioned parse, which is internal.
    module ModelGenCore -enable-testing "${xml[@]}" -I "$build/CSHA256" -I "$build/CAllocator" "${core[@]}"
fi
libraries=(-lMustache -lPredicateSyntax)
[ "$target" = model ] && libraries=(-lModelGenCore "${libraries[@]}" -lCSHA256 -lCAllocator -lxml2)
swiftc "${flags[@]}" -I "$build" -I "$build/CSHA256" -I "$build/CAllocator" "${xml[@]}" "$root/Tests/Fuzz/$target.swift" -L "$build" \
    "${libraries[@]}" -o "$build/fuzz-$target" 2> >(grep -v 'Cannot export local symbol' >&2)

corpus="$build/corpus-$target"
if [ ! -d "$corpus" ]; then
    mkdir -p "$corpus"
    case "$target" in
    model) find "$shared/corpus" -name contents -size -64k -exec sh -c 'cp "$1" "$2/$(echo "$1" | sha1sum | cut -c1-16)"' _ {} "$corpus" \; ;;
    template) python3 -c "
import json, sys, hashlib, glob
for f in glob.glob(sys.argv[1] + '/conformance/mustache-spec/*.json'):
    for t in json.load(open(f))['tests']:
        open(sys.argv[2] + '/' + hashlib.sha1(t['template'].encode()).hexdigest()[:16], 'w').write(t['template'])
" "$shared" "$corpus" ;;
    predicate)
        i=0
        while IFS= read -r line; do i=$((i + 1)); printf '%s' "$line" > "$corpus/seed$i"; done <<'SEEDS'
name BEGINSWITH[c] %@ AND universe IN {'a', "b"}
ANY departments.name ==[cd] $NAME OR NOT (age BETWEEN {18, 65})
SUBQUERY(employees, $e, $e.age > 30 AND $e.name LIKE 'A*').@count > 0
%K == %@ && !(flag == YES) || items[FIRST].x <= -1.5e3
(a + b) * 2 ** 3 > lowercase(name) AND date > CAST(0, 'NSDate')
SEEDS
        ;;
    esac
fi
regressions="$root/Tests/ModelGenCoreTests/Fixtures/FuzzRegressions/$target"
"$build/fuzz-$target" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/" "$@" "$corpus" "$regressions"
