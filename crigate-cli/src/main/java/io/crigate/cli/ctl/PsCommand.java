package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ContainerFilter;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStateValue;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListContainersResponse;
import io.crigate.api.cri.v1.PodSandbox;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

@Command(name = "ps", description = "List containers, newest first (running ones unless -a or --state).")
final class PsCommand extends CriAction {

  @Mixin ListOptions list;

  @Option(names = {"-a", "--all"}, description = "Show containers in every state.")
  boolean all;

  @Option(names = "--id", description = "Only the container with this id (or unique prefix).")
  String id;

  @Option(names = {"-p", "--pod"}, description = "Only containers of this pod (id or unique prefix).")
  String pod;

  @Option(names = "--name", description = "Only containers whose name matches this regular expression.")
  Pattern name;

  @Option(names = "--label", description = "Only containers with this label (key=value, repeatable).")
  Map<String, String> labels = Map.of();

  @Option(
      names = {"-s", "--state"},
      converter = StateConverter.class,
      description = "Only containers in this state: created, running, exited or unknown.")
  ContainerState state;

  @Override
  int run(CriSession cri) {
    ContainerFilter.Builder filter = ContainerFilter.newBuilder().putAllLabelSelector(labels);
    if (id != null) {
      filter.setId(cri.containerId(id));
    }
    if (pod != null) {
      filter.setPodSandboxId(cri.podId(pod));
    }
    if (state != null || !all) {
      ContainerState wanted = state == null ? ContainerState.CONTAINER_RUNNING : state;
      filter.setState(ContainerStateValue.newBuilder().setState(wanted));
    }
    List<Container> containers =
        cri.runtime()
            .listContainers(ListContainersRequest.newBuilder().setFilter(filter).build())
            .getContainersList()
            .stream()
            .filter(c -> name == null || name.matcher(c.getMetadata().getName()).find())
            .sorted(Comparator.comparingLong(Container::getCreatedAt).reversed())
            .toList();
    list.print(
        containers,
        Container::getId,
        () -> table(containers, podNames(cri)::get, Clock.systemUTC().instant(), list.noTrunc),
        () -> ListContainersResponse.newBuilder().addAllContainers(containers),
        out());
    return 0;
  }

  private static Map<String, String> podNames(CriSession cri) {
    return cri.pods().stream()
        .collect(Collectors.toMap(PodSandbox::getId, p -> p.getMetadata().getName(), (a, b) -> a));
  }

  static Table table(
      List<Container> containers, Function<String, String> podName, Instant now, boolean fullIds) {
    Table table =
        new Table("CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD");
    for (Container c : containers) {
      String pod = podName.apply(c.getPodSandboxId());
      table.row(
          HumanUnits.id(c.getId(), fullIds),
          image(c, fullIds),
          HumanUnits.ago(Duration.between(Instant.EPOCH.plusNanos(c.getCreatedAt()), now)),
          stateName(c.getState()),
          c.getMetadata().getName(),
          Integer.toString(c.getMetadata().getAttempt()),
          HumanUnits.id(c.getPodSandboxId(), fullIds),
          pod == null ? "unknown" : pod);
    }
    return table;
  }

  /** The image as the user named it when the runtime kept that, else its (shortened) id. */
  private static String image(Container c, boolean fullIds) {
    String named = c.getImage().getUserSpecifiedImage();
    if (!named.isEmpty()) {
      return named;
    }
    String image = c.getImage().getImage().isEmpty() ? c.getImageRef() : c.getImage().getImage();
    return image.startsWith("sha256:") ? HumanUnits.id(image, fullIds) : image;
  }

  private static String stateName(ContainerState state) {
    return switch (state) {
      case CONTAINER_CREATED -> "Created";
      case CONTAINER_RUNNING -> "Running";
      case CONTAINER_EXITED -> "Exited";
      case CONTAINER_UNKNOWN, UNRECOGNIZED -> "Unknown";
    };
  }

  static final class StateConverter implements ITypeConverter<ContainerState> {
    @Override
    public ContainerState convert(String value) {
      String upper = value.toUpperCase(Locale.ROOT);
      try {
        return ContainerState.valueOf(upper.startsWith("CONTAINER_") ? upper : "CONTAINER_" + upper);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "'%s' is not created, running, exited or unknown".formatted(value));
      }
    }
  }
}
