#!/usr/bin/env bash
# Builds crigate's test images offline from busybox-static with umoci and pushes them to the local
# registry as $CRIGATE_REGISTRY/crigate/<name>:v1. Skips the build when every tag is already there.
#   base   busybox rootfs, cmd /bin/sh
#   a, b   base plus one small file each: both share base's layer (for layer-aware scheduling tests)
#   pause  base with an entrypoint that sleeps until SIGTERM/SIGINT (containerd's sandbox image)
#   demo   base plus /demo.sh: prints a few lines, then sleeps until stopped
#   jre    base plus glibc and a Java runtime cut by jlink from the build JDK: the base of crigate's
#          own OCI image (crigate-cli's `oci-image` profile), since no public registry is reachable
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
registry=${CRIGATE_REGISTRY:-127.0.0.1:5000}
images=(base a b pause demo jre)
oci_accept='application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json'

pushed() { curl -sf -o /dev/null -H "Accept: $oci_accept" "http://$registry/v2/crigate/$1/manifests/v1"; }

missing=0
for name in "${images[@]}"; do pushed "$name" || missing=1; done
if [ $missing = 0 ]; then
  infra_log "images already in $registry"
  exit 0
fi

# busybox-static's binary: images carry no libc, so it must be the static one.
busybox=/bin/busybox
[ -x "$busybox" ] && dpkg -s busybox-static >/dev/null 2>&1 || infra_die "busybox-static not installed (run scripts/infra/install-deps.sh)"

work=$CRIGATE_INFRA_DIR/images
rm -rf "$work"
mkdir -p "$work"
cd "$work"
umoci init --layout oci
umoci new --image oci:base
umoci unpack --image oci:base bundle-base >/dev/null
rootfs=bundle-base/rootfs
mkdir -p "$rootfs"/{bin,etc,tmp,proc,sys,dev,root}
cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$rootfs/bin/busybox" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
done
echo 'root:x:0:0:root:/root:/bin/sh' > "$rootfs/etc/passwd"
echo 'root:x:0:' > "$rootfs/etc/group"
umoci repack --image oci:base bundle-base
umoci config --image oci:base --config.env PATH=/bin --config.cmd /bin/sh

# Adds one file on top of base as a new image with its own small layer.
layer_on_base() {
  local name=$1 path=$2 content=$3
  umoci unpack --image oci:base "bundle-$name" >/dev/null
  printf '%s' "$content" > "bundle-$name/rootfs$path"
  umoci repack --image "oci:$name" "bundle-$name"
}
layer_on_base a /a.txt $'image a\n'
umoci config --image oci:a --config.cmd cat --config.cmd /a.txt
layer_on_base b /b.txt $'image b\n'
umoci config --image oci:b --config.cmd cat --config.cmd /b.txt

umoci config --image oci:base --tag pause --clear=config.cmd \
  --config.entrypoint /bin/sh --config.entrypoint -c \
  --config.entrypoint "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait \$!; done"

layer_on_base demo /demo.sh "$(cat <<'DEMO'
echo "crigate demo: hello from a container on $(hostname)"
echo "crigate demo: started at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "crigate demo: sleeping until stopped"
trap 'echo "crigate demo: stopping"; exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
DEMO
)"
umoci config --image oci:demo --config.cmd /bin/sh --config.cmd /demo.sh

# The modules `jdeps --print-module-deps` reports for crigate-cli and its runtime dependencies
# (rerun it when a dependency is added; CrigateImageIT fails if a needed module is missing).
jre_modules=java.base,java.compiler,java.desktop,java.instrument,java.management,java.naming,java.net.http
jre_modules+=,java.rmi,java.security.jgss,java.sql,jdk.httpserver,jdk.jfr,jdk.unsupported,jdk.crypto.ec
. "$here/../lib/java.sh"
umoci unpack --image oci:base bundle-jre >/dev/null
# The runtime's own libraries (ldd of bin/java and lib/server/libjvm.so), plus libgcc_s and libz
# for the native parts of Netty and sqlite-jdbc.
mkdir -p bundle-jre/rootfs/lib/x86_64-linux-gnu bundle-jre/rootfs/lib64
for lib in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libgcc_s.so.1 libz.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$lib" bundle-jre/rootfs/lib/x86_64-linux-gnu/
done
cp -L /lib64/ld-linux-x86-64.so.2 bundle-jre/rootfs/lib64/
"$JAVA_HOME/bin/jlink" --add-modules "$jre_modules" --output bundle-jre/rootfs/opt/java \
  --strip-debug --no-header-files --no-man-pages
umoci repack --image oci:jre bundle-jre
umoci config --image oci:jre --config.env PATH=/opt/java/bin:/bin --config.env JAVA_HOME=/opt/java \
  --clear=config.cmd --config.cmd java --config.cmd -version

for name in "${images[@]}"; do
  skopeo copy --quiet --dest-tls-verify=false "oci:oci:$name" "docker://$registry/crigate/$name:v1"
done
for name in "${images[@]}"; do pushed "$name" || infra_die "image $name not in $registry after push"; done
infra_log "images built and pushed to $registry/crigate/{$(IFS=,; echo "${images[*]}")}:v1"
