#!/usr/bin/env bash
# The prioritize verb's CPU a call, this checkout against another, in one JVM and alternating
# blocks (docs/benchmarks.md, "A kept connection"): what a change to the verb did, without the
# host's drift between separate runs. The other checkout is built here (crigate-bench and what it
# uses, with its runtime dependencies copied), not installed.
# Usage: bash scripts/bench-verb-side-by-side.sh <other checkout> [blocks=60]
set -euo pipefail
other=$(cd "${1:?usage: bash scripts/bench-verb-side-by-side.sh <other checkout> [blocks=60]}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
(cd "$other" && ./mvnw -B -q -o -pl crigate-bench -am package -DskipTests dependency:copy-dependencies -DincludeScope=runtime)
"$JAVA_HOME/bin/java" -Xmx1g -cp "$bench_classpath" io.crigate.bench.VerbSideBySide \
  "$root/crigate-bench/target/dependency" "$other/crigate-bench/target/dependency" "${2:-60}"
