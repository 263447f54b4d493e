package io.crigate.nri;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.spi.adjust.Mount;
import java.util.List;
import org.junit.jupiter.api.Test;

class NriMountsTest {

  private static io.crigate.api.nri.v1alpha1.Mount nri(String source, String destination, String type, String... options) {
    return io.crigate.api.nri.v1alpha1.Mount.newBuilder().setSource(source).setDestination(destination).setType(type)
        .addAllOptions(List.of(options)).build();
  }

  @Test
  void aMountIsABindWithRbindAndRoWhenReadOnly() {
    assertThat(NriMounts.nri(Mount.samePath("/tmp/vgpulock"))).isEqualTo(nri("/tmp/vgpulock", "/tmp/vgpulock", "bind", "rbind"));
    assertThat(NriMounts.nri(new Mount("/etc/hami", "/opt/hami", true))).isEqualTo(nri("/opt/hami", "/etc/hami", "bind", "rbind", "ro"));
  }

  @Test
  void cleanSpellingsAreReadInAnyOptionOrderAndEveryOtherIsDroppedAsSent() {
    var oddOnes = List.of(
        nri("/a", "/x", "bind", "rbind", "rprivate", "rw"),
        nri("/a", "/y", "bind", "bind"),
        nri("/a", "/z", "tmpfs", "rbind"),
        nri("a", "/w", "bind", "rbind"),
        nri("", "-/v", "", new String[0]),
        nri("/a", "/u", "bind", "rbind", "rbind"),
        nri("/b", "/ro", "bind", "rbind", "ro"));
    var clean = List.of(nri("/lib/x.so", "/lib/x.so", "bind", "rbind"), nri("/a", "/ro", "bind", "ro", "rbind"));

    NriMounts.Read read = NriMounts.read(java.util.stream.Stream.concat(clean.stream(), oddOnes.stream()).toList());

    // the second mount at /ro is dropped too: one per container path
    assertThat(read.mounts()).containsExactly(Mount.samePath("/lib/x.so"), new Mount("/ro", "/a", true));
    assertThat(read.dropped()).isEqualTo(oddOnes);
    assertThat(NriMounts.describe(oddOnes.getFirst())).isEqualTo("/a:/x (bind [rbind, rprivate, rw])");
  }
}
