#!/usr/bin/env bash
# Measures modelgen and ModelGenRuntime and rewrites Documentation/Benchmarks.md with the figures.
#   Scripts/benchmarks.sh            # 5 runs of each runtime benchmark (medians)
#   Scripts/benchmarks.sh 9          # 9 runs
#   Scripts/benchmarks.sh 5 out.md   # write elsewhere
# Builds modelgen-bench in release mode, then runs `frontend` and `generate` once (each is the
# best of 15 runs per phase inside one process) and `runtime` RUNS times on SQLite and RUNS times on
# PostgreSQL (a throwaway cluster: needs PostgreSQL's initdb; without it that table says so).
# Every figure is a ratio against a baseline doing the same work in the same process. Run it on
# an otherwise idle machine: on a busy one, single ratios swing by ±40%.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
output="${2:-Documentation/Benchmarks.md}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

swift build -c release --product modelgen-bench >&2
bench="$(swift build -c release --show-bin-path)/modelgen-bench"

# One JSON report ({"phases":[{"name","ms","baselineMs","ratio"}, …]}) → lines "name<TAB>ms<TAB>baselineMs<TAB>ratio".
rows() {
    sed -e 's/^{"phases":\[{//' -e 's/}\]}$//' -e 's/},{/\n/g' |
        sed -E 's/^"name":"([^"]*)","ms":([0-9.]+),"baselineMs":([0-9.]+),"ratio":([0-9.]+)$/\1\t\2\t\3\t\4/'
}

# Lines "name<TAB>ms<TAB>baselineMs<TAB>ratio" of several runs → a Markdown table of the medians,
# phases in the order of the first run.
medians() {
    awk -F '\t' '
        !($1 in seen) { seen[$1] = 1; order[++phases] = $1 }
        { n = ++count[$1]; ms[$1, n] = $2; base[$1, n] = $3; ratio[$1, n] = $4 }
        function median(values, name, n,    i, j, sorted, t) {
            for (i = 1; i <= n; i++) sorted[i] = values[name, i] + 0
            for (i = 2; i <= n; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
                t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t
            }
            return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
        }
        END {
            print "| phase | ms | baseline ms | ratio (median) | ratios of the runs |"
            print "|---|---|---|---|---|"
            for (p = 1; p <= phases; p++) {
                name = order[p]; n = count[name]; all = ""
                for (i = 1; i <= n; i++) all = all (i > 1 ? " " : "") sprintf("%.2f", ratio[name, i])
                printf "| %s | %.1f | %.1f | %.2f | %s |\n", name, median(ms, name, n), median(base, name, n), median(ratio, name, n), all
            }
        }'
}

echo "frontend…" >&2
"$bench" frontend --json | rows >"$scratch/frontend"
echo "generate…" >&2
"$bench" generate --json | rows >"$scratch/generate"
for run in $(seq "$runs"); do
    echo "runtime on SQLite, run $run of $runs…" >&2
    "$bench" runtime --json | rows >>"$scratch/sqlite"
done
postgres=yes
if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    for run in $(seq "$runs"); do
        echo "runtime on PostgreSQL, run $run of $runs…" >&2
        "$bench" runtime --engine postgres --json | rows >>"$scratch/postgres"
    done
else
    postgres=no
fi

{
    cat <<EOF
# Benchmarks

Written by \`Scripts/benchmarks.sh $runs\` (release build of \`modelgen-bench\`) on $(nproc) cores,
$(swift --version 2>/dev/null | head -1 | sed 's/ (.*//'). Every ratio is the measured code's time ÷ a baseline doing the same useful work in the same
process; "ms" columns are medians too. This file is the script's output: run it again to
reproduce or refresh the figures (on an idle machine: single runs on a 2-core VM swing ±40%).

## Front end

\`modelgen-bench frontend\`: parse, resolve and validate a generated model of 2,000 entities × 20
attributes × 3 relationships; baseline: libxml2 alone parsing the same bytes. Best of 15 runs per
phase.

EOF
    medians <"$scratch/frontend"
    cat <<EOF

## Generate

\`modelgen-bench generate\`: the whole pipeline (Swift and both SQL dialects) on models of 50, 200
and 2,000 entities; baseline: libxml2 parsing the same bytes. Best of 15 runs per phase (2,000
entities: best of 7). "per-entity-2000-vs-200" compares the time per entity at 2,000 entities
(its "ms") with that at 200 (its "baseline ms"): how generation scales. The "2000: …" rows break
the 2,000-entity run down by stage (best of 5), each next to the same libxml2 baseline.

EOF
    medians <"$scratch/generate"
    cat <<EOF

## Runtime on SQLite

\`modelgen-bench runtime\`, $runs runs: 100,000 objects of a five-attribute entity through
ModelGenRuntime; baseline: the SQLite C API doing the same work (statements prepared once, one
transaction per save, rows read into Swift values). In "fetch all" the baseline keeps each row as
a Swift struct in an array, as an application keeps what it reads; in "fetch all (read only)" it
sums the values and drops them. "fetch with prefetch" reads 10,000 orders with their 10 lines each
(\`relationshipKeyPathsForPrefetching\`) against the orders in one query, then their lines in one
query ordered by order, gathered into arrays of structs. "sum group-by" sums the price of 100,000
sales grouped by a 100-value category (\`ValuesRequest\`, each group kept as a struct) against the
same SELECT … GROUP BY; "batch delete half" deletes the sales of 50 categories
(\`batchDelete\`) against one DELETE. The observe phases compare differently:
"observe" is 1,000 saves of one changed object each while another context observes all 100,000
objects sorted by price (each save followed by the observation's next results and change set)
against the same saves with nothing observing; "observe (moves)" changes the sort key, so that
each save moves the object among the 100,000. Their ratio is what observing adds to a save.
"concurrent reads" runs tasks that prefer the store's executor (\`Task(executorPreference:)\`):
1 or 4 readers each fetch their quarter of 100,000 sales (25,000 objects) 4 times, each in a
fresh context, and count it, while one task saves 1,000 single-object changes one save each;
baseline: as many C-API threads, one connection per reader and one writer (WAL,
\`synchronous = NORMAL\`, updates checking the version as a save does). The 4-reader time next to
the 1-reader time is how reading scales on this machine's 2 cores.

EOF
    medians <"$scratch/sqlite"
    cat <<EOF

## Runtime on PostgreSQL

\`modelgen-bench runtime --engine postgres\`, $runs runs on a throwaway local cluster; baseline:
libpq doing the same work (statements prepared once, writes pipelined in one transaction, binary
results kept in an array of Swift structs; dropped in "fetch all (read only)"). The phases are the
SQLite section's; before "concurrent reads" the database is vacuumed (\`VACUUM ANALYZE\`), so
that the server's autovacuum of the earlier phases' tables does not run beside some of its runs.
The runtime's saves also send their change notification (\`pg_notify\`), which every store on
the database receives; the baseline sends none.

EOF
    if [ "$postgres" = yes ]; then
        medians <"$scratch/postgres"
    else
        echo "Not measured: PostgreSQL's \`initdb\` was not found on this machine."
    fi
} >"$output"
echo "wrote $output" >&2
