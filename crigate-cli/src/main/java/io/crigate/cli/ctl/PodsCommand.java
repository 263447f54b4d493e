package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.ListPodSandboxResponse;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.PodSandboxFilter;
import io.crigate.api.cri.v1.PodSandboxState;
import io.crigate.api.cri.v1.PodSandboxStateValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

@Command(name = "pods", description = "List pods, newest first.")
final class PodsCommand extends CriAction {

  @Mixin ListOptions list;

  @Option(names = "--id", description = "Only the pod with this id (or unique prefix).")
  String id;

  @Option(names = "--name", description = "Only pods whose name matches this regular expression.")
  Pattern name;

  @Option(names = "--namespace", description = "Only pods whose namespace matches this regular expression.")
  Pattern namespace;

  @Option(names = "--label", description = "Only pods with this label (key=value, repeatable).")
  Map<String, String> labels = Map.of();

  @Option(
      names = {"-s", "--state"},
      converter = StateConverter.class,
      description = "Only pods in this state: ready or notready.")
  PodSandboxState state;

  @Override
  int run(CriSession cri) {
    PodSandboxFilter.Builder filter = PodSandboxFilter.newBuilder().putAllLabelSelector(labels);
    if (id != null) {
      filter.setId(cri.podId(id));
    }
    if (state != null) {
      filter.setState(PodSandboxStateValue.newBuilder().setState(state));
    }
    List<PodSandbox> pods =
        cri.runtime()
            .listPodSandbox(ListPodSandboxRequest.newBuilder().setFilter(filter).build())
            .getItemsList()
            .stream()
            .filter(pod -> name == null || name.matcher(pod.getMetadata().getName()).find())
            .filter(pod -> namespace == null || namespace.matcher(pod.getMetadata().getNamespace()).find())
            .sorted(Comparator.comparingLong(PodSandbox::getCreatedAt).reversed())
            .toList();
    list.print(
        pods,
        PodSandbox::getId,
        () -> table(pods, Clock.systemUTC().instant(), list.noTrunc),
        () -> ListPodSandboxResponse.newBuilder().addAllItems(pods),
        out());
    return 0;
  }

  static Table table(List<PodSandbox> pods, Instant now, boolean fullIds) {
    Table table = new Table("POD ID", "CREATED", "STATE", "NAME", "NAMESPACE", "ATTEMPT", "RUNTIME");
    for (PodSandbox pod : pods) {
      table.row(
          HumanUnits.id(pod.getId(), fullIds),
          HumanUnits.ago(Duration.between(Instant.EPOCH.plusNanos(pod.getCreatedAt()), now)),
          pod.getState() == PodSandboxState.SANDBOX_READY ? "Ready" : "NotReady",
          pod.getMetadata().getName(),
          pod.getMetadata().getNamespace(),
          Integer.toString(pod.getMetadata().getAttempt()),
          pod.getRuntimeHandler().isEmpty() ? "(default)" : pod.getRuntimeHandler());
    }
    return table;
  }

  static final class StateConverter implements ITypeConverter<PodSandboxState> {
    @Override
    public PodSandboxState convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "ready", "sandbox_ready" -> PodSandboxState.SANDBOX_READY;
        case "notready", "sandbox_notready" -> PodSandboxState.SANDBOX_NOTREADY;
        default -> throw new TypeConversionException("'%s' is not ready or notready".formatted(value));
      };
    }
  }
}
