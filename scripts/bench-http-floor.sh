#!/usr/bin/env bash
# What an HTTP server alone adds to a prioritize round trip (docs/benchmarks.md, "The extender on
# Netty"): Helidon 4 on virtual threads against Netty's HTTP codec on an epoll event loop, the same
# request and answer sizes, a busy wait standing in for the verb, one curl process each, interleaved.
# Usage: bash scripts/bench-http-floor.sh [requestBytes=222000] [answerBytes=330000] [workMicros=0] [calls=3000]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
"$JAVA_HOME/bin/java" -cp "$bench_classpath" io.crigate.bench.HttpServerFloor "$@"
