# Sourced by the benchmark scripts that run crigate-bench against the shared infrastructure: moves to
# the repository, selects the JDK, loads the infrastructure's environment (scripts/infra/up.sh), and
# builds crigate-bench with its runtime classpath in $bench_classpath.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
. scripts/lib/java.sh
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
./mvnw -B -q -o -pl crigate-bench -am package -DskipTests dependency:copy-dependencies -DincludeScope=runtime
bench_classpath="crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-bench/target/dependency/*"
