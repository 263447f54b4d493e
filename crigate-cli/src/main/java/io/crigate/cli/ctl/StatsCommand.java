package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ContainerStats;
import io.crigate.api.cri.v1.ContainerStatsFilter;
import io.crigate.api.cri.v1.ListContainerStatsRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "stats", description = "Resource usage of containers (ListContainerStats).")
final class StatsCommand extends CriAction {

  @Parameters(arity = "0..1", paramLabel = "CONTAINER-ID", description = "Only this container (id or unique prefix).")
  String container;

  @Option(names = {"-p", "--pod"}, description = "Only containers of this pod (id or unique prefix).")
  String pod;

  @Option(names = "--no-trunc", description = "Show full ids.")
  boolean noTrunc;

  @Override
  int run(CriSession cri) {
    ContainerStatsFilter.Builder filter = ContainerStatsFilter.newBuilder();
    if (container != null) {
      filter.setId(cri.containerId(container));
    }
    if (pod != null) {
      filter.setPodSandboxId(cri.podId(pod));
    }
    List<ContainerStats> stats = cri.runtime()
        .listContainerStats(ListContainerStatsRequest.newBuilder().setFilter(filter).build()).getStatsList();
    Table table = new Table("CONTAINER", "NAME", "CPU NANOCORES", "MEM", "DISK", "INODES");
    for (ContainerStats s : stats) {
      table.row(HumanUnits.id(s.getAttributes().getId(), noTrunc), s.getAttributes().getMetadata().getName(),
          Long.toString(s.getCpu().getUsageNanoCores().getValue()),
          HumanUnits.size(s.getMemory().getWorkingSetBytes().getValue()),
          HumanUnits.size(s.getWritableLayer().getUsedBytes().getValue()),
          Long.toString(s.getWritableLayer().getInodesUsed().getValue()));
    }
    table.print(out());
    return 0;
  }
}
