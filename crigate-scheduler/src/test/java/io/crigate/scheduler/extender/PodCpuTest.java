package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PodCpuTest {

  static Container container(String cpu) {
    var builder = new ContainerBuilder().withName("c" + cpu).withImage("x:1");
    return cpu == null ? builder.build() : builder.withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().build();
  }

  static Container sidecar(String cpu) {
    return new ContainerBuilder(container(cpu)).withRestartPolicy("Always").build();
  }

  record Case(String name, PodSpec spec, long expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("containers add up", spec(List.of(), List.of(container("250m"), container("0.5"))), 750),
        new Case("a container without requests adds nothing", spec(List.of(), List.of(container(null), container("1"))), 1000),
        // init 2 cores alone > containers 0.75: the pod needs 2000
        new Case("an init container larger than the containers decides", spec(List.of(container("2")),
            List.of(container("250m"), container("500m"))), 2000),
        // inits run one at a time: max(300, 200) = 300 < containers 500
        new Case("init containers do not add up", spec(List.of(container("300m"), container("200m")),
            List.of(container("500m"))), 500),
        // sidecar 100 runs with the containers: 100 + 400 = 500; the init after it needs 100 + 450 = 550
        new Case("a sidecar adds to the containers and to the init containers after it",
            spec(List.of(sidecar("100m"), container("450m")), List.of(container("400m"))), 550),
        // the init before the sidecar runs alone: 700 > 100 + 400
        new Case("an init container before a sidecar runs without it",
            spec(List.of(container("700m"), sidecar("100m")), List.of(container("400m"))), 700),
        // 1.5 millicores round up to 2
        new Case("fractions of a millicore round up", spec(List.of(), List.of(container("1500u"))), 2),
        new Case("overhead comes on top", new PodSpecBuilder(spec(List.of(), List.of(container("1"))))
            .withOverhead(Map.of("cpu", new Quantity("250m"))).build(), 1250),
        // pod-level 3 cores replace the containers' 1 core; overhead still on top
        new Case("pod-level requests replace the containers'", new PodSpecBuilder(spec(List.of(), List.of(container("1"))))
            .withNewResources().addToRequests("cpu", new Quantity("3")).endResources()
            .withOverhead(Map.of("cpu", new Quantity("100m"))).build(), 3100));
  }

  static PodSpec spec(List<Container> init, List<Container> containers) {
    return new PodSpecBuilder().withInitContainers(init).withContainers(containers).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void millis(Case c) {
    assertThat(PodCpu.millis(c.spec())).isEqualTo(c.expected());
  }
}
