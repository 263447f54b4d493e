# Sourced by crigate's scripts: exports JAVA_HOME pointing at a JDK >= 21, or fails naming the problem.
crigate_java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }
crigate_find_jdk() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(crigate_java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
if ! JAVA_HOME=$(crigate_find_jdk); then
  echo "crigate: no JDK 21 or newer found (set JAVA_HOME or install one under /usr/lib/jvm)" >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME
