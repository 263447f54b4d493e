# Sourced by crigate's scripts: exports JAVA_HOME pointing at a JDK >= 21 (and JAVA_MAJOR), or fails
# naming the problem. Reads each JDK's `release` file rather than running it: starting a JVM just to
# ask its version would add a few hundred milliseconds to every bin/crigate call. It reads the file
# with the shell's own `read`, not sed: bin/crigate sources this before every `serve`, whose start a
# kubelet waits for, and each program run costs ~10 ms here (docs/benchmarks.md).

# crigate_release JDK KEY: sets REPLY to KEY's value in JDK/release, without its quotes ("" if absent).
crigate_release() {
  local line
  REPLY=""
  [ -r "$1/release" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ "$line" == "$2="* ]]; then
      REPLY=${line#"$2="}
      REPLY=${REPLY#\"}
      REPLY=${REPLY%\"}
      return 0
    fi
  done <"$1/release"
}
# crigate_java_major JDK: sets REPLY to the JDK's feature release (25 for JAVA_VERSION="25.0.1").
crigate_java_major() {
  crigate_release "$1" JAVA_VERSION
  REPLY=${REPLY%%[!0-9]*}
}
# crigate_find_jdk: sets JAVA_HOME to $JAVA_HOME if that is a JDK 21+, else to the first under /usr/lib/jvm.
crigate_find_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    crigate_java_major "$candidate"
    if [ -n "$REPLY" ] && [ "$REPLY" -ge 21 ]; then
      JAVA_HOME=$candidate
      JAVA_MAJOR=$REPLY
      return 0
    fi
  done
  return 1
}
if ! crigate_find_jdk; then
  cat >&2 <<'MSG'
crigate: no JDK 21 or newer found (looked at $JAVA_HOME and /usr/lib/jvm/*).
  Debian 12 packages only JDK 17. Install a JDK 21+, for example Eclipse Temurin from Adoptium's
  apt repository (package temurin-21-jdk or temurin-25-jdk, see adoptium.net/installation/linux),
  or unpack any JDK 21+ under /usr/lib/jvm, or point JAVA_HOME at one; then run this again.
MSG
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME JAVA_MAJOR
