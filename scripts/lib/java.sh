# Sourced by crigate's scripts: exports JAVA_HOME pointing at a JDK >= 21 (and JAVA_MAJOR), or fails
# naming the problem. Reads each JDK's `release` file rather than running it: starting a JVM just to
# ask its version would add a few hundred milliseconds to every bin/crigate call.
crigate_java_major() {
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null | head -n1
}
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
  cat >&2 <<'MSG'
crigate: no JDK 21 or newer found (looked at $JAVA_HOME and /usr/lib/jvm/*).
  Debian 12 packages only JDK 17. Install a JDK 21+, for example Eclipse Temurin from Adoptium's
  apt repository (package temurin-21-jdk or temurin-25-jdk, see adoptium.net/installation/linux),
  or unpack any JDK 21+ under /usr/lib/jvm, or point JAVA_HOME at one; then run this again.
MSG
  return 1 2>/dev/null || exit 1
fi
JAVA_MAJOR=$(crigate_java_major "$JAVA_HOME")
export JAVA_HOME JAVA_MAJOR
